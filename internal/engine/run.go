package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"
)

// rootName names the template every chart's templates are parsed into,
// and the templates tpl parses; it shows in tpl's messages
// ("template: gotpl:1:3: ...") as it does in Helm's.
const rootName = "gotpl"

// noValue is what text/template prints for a missing map key. Helm's
// engine prints nothing instead, and so does this one.
const noValue = "<no value>"

// run is one rendering: its own copy of the parsed templates, with include
// and tpl bound to it, and how deep include has nested each name. tpl
// makes a child run over a copy that also holds the templates its text
// defines, sharing the nesting counts.
type run struct {
	t       *template.Template
	nesting map[string]int
	weights *weights
	*budget
}

// budget is what a rendering has spent of its limits, shared by the runs
// of its tpl calls, and the context that stops it: one part per concern,
// each with its own methods in its own file.
type budget struct {
	ctx       context.Context
	made      // what the templates made (here)
	callDepth // how deep the calls run (depth.go, stack.go)
	recorder  // the unstable functions called (unstable.go)
}

// made counts what a rendering's templates made.
type made struct {
	// nested counts the dicts and lists made holding a dict or a list.
	nested int
	// printed counts the bytes the templates printed, include and tpl
	// included, up to maxPrinted.
	printed, maxPrinted int64
}

// newRun binds include, tpl and the functions that count towards b to t,
// which the run owns.
func newRun(t *template.Template, nesting map[string]int, w *weights, b *budget) *run {
	r := &run{t: t, nesting: nesting, weights: w, budget: b}
	fm := r.nestingFuncs(sprigFuncs())
	fm["include"], fm["tpl"] = r.include, r.tpl
	t.Funcs(fm).Funcs(r.stackFuncs())
	return r
}

// output is where a template of a run prints: it counts what it takes
// against the budget, and stops taking when the rendering's context ends
// (an interrupt, --timeout), so that a template still running after its
// rendering was given up stops at its next output.
type output struct {
	strings.Builder
	b *budget
}

func (o *output) Write(p []byte) (int, error) {
	if err := context.Cause(o.b.ctx); err != nil {
		return 0, err
	}
	if o.b.printed += int64(len(p)); o.b.printed > o.b.maxPrinted {
		return 0, limitError(fmt.Sprintf("the templates printed more than %d bytes, counting what include and tpl return (repotool's limit)", o.b.maxPrinted))
	}
	return o.Builder.Write(p)
}

// include runs the named template with data and returns what it prints.
func (r *run) include(name string, data any) (string, error) {
	if r.nesting[name] >= maxNesting {
		return "", fmt.Errorf("rendering template has a nested reference name: %s: %w", name, errors.New("unable to execute template"))
	}
	if err := r.enter(name, false); err != nil {
		return "", err
	}
	defer r.leave(false)
	frames := r.frames
	defer func() { r.frames = frames }() // what the templates it ran counted, also when they failed
	if err := r.account(framesInclude, r.weights.get(name), "include", name); err != nil {
		return "", err
	}
	r.nesting[name]++
	r.stack = append(r.stack, name)
	defer func() { r.nesting[name]--; r.stack = r.stack[:len(r.stack)-1] }()
	out := output{b: r.budget}
	if err := r.t.ExecuteTemplate(&out, name, data); err != nil {
		if de, ok := asDepth(err); ok {
			return "", de
		}
		return out.String(), err
	}
	return out.String(), nil
}

// tpl runs text as a template with data, in a copy of the rendering's
// templates: text may include them and define its own, which it and the
// tpl calls inside it see, and nothing outside does.
func (r *run) tpl(text string, data any) (string, error) {
	if err := r.enter("", true); err != nil {
		return "", err
	}
	defer r.leave(true)
	r.stack = append(r.stack, "")
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()
	t, err := r.t.Clone()
	if err != nil {
		return "", fmt.Errorf("cannot clone template: %w", err)
	}
	t.Option("missingkey=zero")
	if err := checkControls(rootName, text); err != nil {
		return "", fmt.Errorf("cannot parse template %s: %w", quote(text, quoteMax), err)
	}
	parsed, err := t.New(rootName).Parse(text)
	if err != nil {
		return "", fmt.Errorf("cannot parse template %q: %w", text, err)
	}
	// Its text's templates: parsed under rootName, which no chart
	// template is, and not the ones of an enclosing tpl's text.
	trees := parsedAnew(t, func(tmpl *template.Template) bool {
		if tmpl.ParseName != rootName {
			return false
		}
		old := r.t.Lookup(tmpl.Name())
		return old == nil || old.Tree != tmpl.Tree
	})
	if err := checkForged(trees); err != nil {
		return "", fmt.Errorf("cannot parse template %s: %w", quote(text, quoteMax), err)
	}
	child := newRun(t, r.nesting, weigh(t, trees, r.weights, true), r.budget)
	frames := r.frames
	defer func() { r.frames = frames }()
	if err := r.account(framesTpl, child.weights.get(rootName), "tpl", ""); err != nil {
		return "", err
	}
	out := output{b: r.budget}
	if err := parsed.Execute(&out, data); err != nil {
		if de, ok := asDepth(err); ok {
			return "", de
		}
		return "", fmt.Errorf("error during tpl function execution for %s: %w", quote(text, len(err.Error())), err)
	}
	return strings.ReplaceAll(out.String(), noValue, ""), nil
}

// userError is a failure a chart asked for, with required or fail: Helm
// reports its message alone, where the template called for it, without
// the chain of templates and functions it went through.
type userError string

func (e userError) Error() string { return string(e) }

// execError is the message of a failed execution of the template name:
// for required and fail, "execution error at (<where>): <message>";
// otherwise text/template's own error.
func execError(name string, err error) error {
	if _, ok := err.(template.ExecError); !ok {
		return err
	}
	var ue userError
	if !errors.As(err, &ue) {
		return err
	}
	// "template: <where>: executing ...": where the outermost template
	// called for the failure.
	parts := strings.SplitN(err.Error(), ": ", 3)
	if len(parts) < 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	return fmt.Errorf("execution error at (%s): %s", parts[1], string(ue))
}

// parseError is the message of a template that does not parse:
// "parse error at (<file>:<line>): <what>".
func parseError(name string, err error) error {
	parts := strings.Split(err.Error(), ": ")
	if len(parts) < 2 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", parts[1], parts[len(parts)-1])
}
