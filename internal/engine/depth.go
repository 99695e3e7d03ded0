package engine

import (
	"context"
	"errors"
	"fmt"
)

// How deep templates may run each other. Each include or tpl runs a
// template on the Go stack of the one that called it, and text/template's
// own template action nests up to 100,000 deep inside each of them: a chart
// can make the stack overflow Go's 1 GiB limit, which ends the process
// whatever recovers (a tpl of a value that tpls itself did, at 5.9 GB;
// stack.go counts the stack). And each nested call's failure message holds
// the one below it, so a deep chain builds messages of a size that grows
// with the square of its depth. So:
const (
	// maxNesting is how many times include may run a name inside itself,
	// as Helm allows: 1,001 nested calls run, the next one fails.
	maxNesting = 1001
	// MaxTplNesting bounds tpl calls running inside each other (through
	// include or not). Helm has no such limit (its tpl recursion overflows
	// the stack); this one is lower than include's because every tpl level
	// copies the chart's templates and quotes its text in a failure's
	// message. Charts nest tpl a few levels deep.
	MaxTplNesting = 100
	// MaxCallDepth bounds include and tpl calls running inside each other,
	// whatever their names: include's limit is per name, so a chain through
	// many names would otherwise have none.
	MaxCallDepth = 1200
)

// quoteMax bounds the text tpl quotes in its failure message once the
// message below it is long: a chain of tpl calls each quoting a large
// text would otherwise make messages of a size that grows with the square
// of the chain's depth. Below it, the message is Helm's.
const quoteMax = 64 << 10

// depthError is a call refused by one of these limits. The calls it was
// inside return it as it is, not wrapped in their own messages, so that
// it stays one line long however deep it was met; text/template names the
// template and line of the outermost call.
type depthError struct{ limitError }

// enter counts one more include of name, or tpl, running inside the
// others, and fails when the calls nest deeper than MaxCallDepth or tpl
// deeper than MaxTplNesting (the frames they use are counted apart:
// stack.go). The rendering's context is checked too: a template that only
// includes or tpls, printing nothing, stops when its rendering is given
// up. leave undoes it.
func (b *budget) enter(name string, tpl bool) error {
	if err := context.Cause(b.ctx); err != nil {
		return err
	}
	return b.callDepth.enter(name, tpl)
}

// callDepth counts the calls of a rendering running inside each other.
type callDepth struct {
	// calls counts the include and tpl calls running inside each other,
	// tpls the tpl calls among them, and frames the Go stack frames the
	// running templates may use, as stack.go counts them.
	calls, tpls, frames int
	// base is the frames on the stack where the rendering's templates
	// start, for stackCheck.
	base int
	// stack names the templates running inside each other, innermost
	// last ("" for text given to tpl): where an unstable call is
	// (unstable.go).
	stack []string
}

// enter is budget.enter's count: one more call of its kind, refused past
// the limits.
func (b *callDepth) enter(name string, tpl bool) error {
	kind := "include"
	if tpl {
		kind = "tpl"
	}
	switch {
	case b.calls >= MaxCallDepth:
		return depthError{limitError(fmt.Sprintf("include and tpl calls ran inside each other more than %d deep: does a template include or tpl itself "+
			"without end? (repotool's limit), at %s", MaxCallDepth, callName(kind, name)))}
	case tpl && b.tpls >= MaxTplNesting:
		return depthError{limitError(fmt.Sprintf("tpl calls ran inside each other more than %d deep: does a value's text tpl itself? (repotool's limit), "+
			"at %s", MaxTplNesting, callName(kind, name)))}
	}
	b.calls++
	if tpl {
		b.tpls++
	}
	return nil
}

// callName names a refused call in a limit's message: `include "name"`,
// `template "name"` or `tpl`. It is made only when a call is refused:
// include is on every rendering's hot path.
func callName(kind, name string) string {
	if kind == "tpl" {
		return kind
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// asDepth returns the depthError err holds, if any, for the calls it went
// through to return as it is.
func asDepth(err error) (depthError, bool) {
	var de depthError
	return de, errors.As(err, &de)
}

func (b *callDepth) leave(tpl bool) {
	b.calls--
	if tpl {
		b.tpls--
	}
}

// quote is text as tpl's failure message quotes it: whole (as Helm does)
// unless the message it wraps, of n bytes, is already long.
func quote(text string, n int) string {
	if n < quoteMax || len(text) <= 64 {
		return fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf("%q (%d bytes)", text[:64]+"...", len(text))
}
