package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
)

// How deep templates may run each other. Each include or tpl runs a
// template on the Go stack of the one that called it, and text/template's
// own template action nests up to 100,000 deep inside each of them, about
// 1.5 KiB of stack a level: a chart can make the stack overflow Go's 1 GiB
// limit, which ends the process whatever recovers (a tpl of a value that
// tpls itself did, at 5.9 GB). And each nested call's failure message holds
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
	// maxFrames bounds the Go stack, in frames, on which an include or a
	// tpl inside another starts: about 40 MiB, where charts use a few
	// hundred frames. Only template actions nested tens of thousands deep
	// between the calls get there; the stack a template may add before the
	// next call is checked stays far below Go's limit.
	maxFrames = 200_000
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
// others, and fails when the calls nest deeper than MaxCallDepth, tpl
// deeper than MaxTplNesting, or the stack they start on is deeper than
// maxFrames. The rendering's context is checked too: a template that only
// includes or tpls, printing nothing, stops when its rendering is given
// up. leave undoes it.
func (b *budget) enter(name string, tpl bool) error {
	if err := context.Cause(b.ctx); err != nil {
		return err
	}
	what := fmt.Sprintf("include %q", name)
	if tpl {
		what = "tpl"
	}
	refuse := func(format string, args ...any) error {
		return depthError{limitError(fmt.Sprintf(format, args...) + " (repotool's limit), at " + what)}
	}
	switch {
	case b.calls >= MaxCallDepth:
		return refuse("include and tpl calls ran inside each other more than %d deep: does a template include or tpl itself without end?", MaxCallDepth)
	case tpl && b.tpls >= MaxTplNesting:
		return refuse("tpl calls ran inside each other more than %d deep: does a value's text tpl itself?", MaxTplNesting)
	}
	below := 0
	if b.calls > 0 {
		// The first call's stack is not measured: it is the common case,
		// and one call's template actions cannot overflow the stack.
		if below = b.stackBelow(); below > maxFrames {
			return refuse("the templates ran inside each other more than %d Go stack frames deep: does a template run itself with template, tens of thousands "+
				"deep?", maxFrames)
		}
	}
	b.calls++
	if tpl {
		b.tpls++
	}
	b.frames = append(b.frames, below)
	return nil
}

// asDepth returns the depthError err holds, if any, for the calls it went
// through to return as it is.
func asDepth(err error) (depthError, bool) {
	var de depthError
	return de, errors.As(err, &de)
}

func (b *budget) leave(tpl bool) {
	b.calls--
	if tpl {
		b.tpls--
	}
	b.frames = b.frames[:len(b.frames)-1]
}

// windows are how many frames stackBelow reads, in turn, before it walks
// the whole stack.
var windows = [...]int{64, 1024}

// stackBelow returns how many Go stack frames stand below (and include)
// the include or tpl that calls enter, or maxFrames+1 when there are more
// than maxFrames. Walking the whole stack at every nested call would cost
// the square of the nesting; so it reads the top frames, and where the
// stack is deeper than that it finds in them the include or tpl below the
// calling one, whose count enter kept: only a call that more than 1,024
// frames of template actions separate from the one below it walks the
// whole stack, and those frames took longer to make than to walk.
func (b *budget) stackBelow() int {
	var buf [1024]uintptr
	self := -1
	for _, w := range windows {
		pcs := buf[:w]
		n := runtime.Callers(0, pcs)
		self = -1
		for i, pc := range pcs[:n] {
			if !callFrame(pc) {
				continue
			}
			if self < 0 {
				if self = i; n < w {
					return n - self
				}
				continue
			}
			if prev := b.frames[len(b.frames)-1]; prev > 0 {
				return prev + i - self
			}
			break
		}
	}
	if runtime.Callers(maxFrames, buf[:1]) > 0 {
		return maxFrames + 1
	}
	all := make([]uintptr, maxFrames)
	return runtime.Callers(0, all) - max(self, 0)
}

// callEntries are the entry points of include and tpl, whose frames
// stackBelow looks for (set in init: they call it).
var callEntries [2]uintptr

func init() {
	for i, f := range []any{(*run).include, (*run).tpl} {
		callEntries[i] = runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Entry()
	}
}

// callFrames caches, by program counter, whether a frame is include's or
// tpl's.
var callFrames sync.Map // uintptr -> bool

func callFrame(pc uintptr) bool {
	if v, ok := callFrames.Load(pc); ok {
		return v.(bool)
	}
	f := runtime.FuncForPC(pc)
	is := f != nil && (f.Entry() == callEntries[0] || f.Entry() == callEntries[1])
	callFrames.Store(pc, is)
	return is
}

// quote is text as tpl's failure message quotes it: whole (as Helm does)
// unless the message it wraps, of n bytes, is already long.
func quote(text string, n int) string {
	if n < quoteMax || len(text) <= 64 {
		return fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf("%q (%d bytes)", text[:64]+"...", len(text))
}
