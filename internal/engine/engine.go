package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// DefaultCacheSize is the template source, in bytes, whose parsed sets an
// Engine keeps by default.
const DefaultCacheSize = 64 << 20

// Engine renders charts as `helm template` runs their templates, and
// keeps each chart's parsed templates for its later renderings. Its zero
// value is ready to use, and it is safe for concurrent use.
type Engine struct {
	// CacheSize bounds the template source, in bytes, whose parsed sets
	// are kept, the least recently used going first: 0 means
	// DefaultCacheSize, a negative value keeps none.
	CacheSize int

	// MaxPrinted bounds, in bytes, what the templates of one rendering
	// print, counting what include and tpl return: 0 means
	// DefaultMaxPrinted.
	MaxPrinted int64
	// Helm is the major version of Helm whose engine this one is: 3 (or
	// 0) or 4. Helm 4 adds template functions (helm4Funcs) and reports a
	// failed execution as a trace of the templates it went through
	// (traceError). Set it before the first rendering.
	Helm int

	cache parseCache
}

// DefaultMaxPrinted is Engine.MaxPrinted's default.
const DefaultMaxPrinted = 128 << 20

// Render runs the templates of c and its subcharts with top, the values
// Helm's chartutil.ToRenderValues makes (Values, Release, Capabilities),
// and returns what each template prints by its path from the top chart
// ("app/templates/cm.yaml", "app/charts/sub/templates/svc.yaml"). Partials
// (names starting with "_") are run only through include and template.
//
// The first template that fails, in parse order, fails the rendering with
// Helm's message, and nothing is returned.
func (e *Engine) Render(c *chart.Chart, top chartutil.Values) (out map[string]string, err error) {
	return e.RenderContext(context.Background(), c, top)
}

// RenderContext is Render within ctx: when ctx ends, the templates stop at
// their next output or include, and the rendering fails with ctx's cause.
func (e *Engine) RenderContext(ctx context.Context, c *chart.Chart, top chartutil.Values) (out map[string]string, err error) {
	out, _, err = e.RenderCalls(ctx, c, top, false)
	return out, err
}

// RenderCalls is RenderContext that also returns the unstable functions
// the rendering called (lookup, the clock, chance; see unstableFuncs),
// where, sorted: what makes two renderings of the same input differ. With
// verify, only the calls whose result reaches the output are returned:
// each call site is tried with another result (unstable.go), which costs
// a rendering per site, and a call whose result the templates throw away
// (`default (randAlphaNum 8)` when a value is given: Go templates compute
// every argument) is not one.
func (e *Engine) RenderCalls(ctx context.Context, c *chart.Chart, top chartutil.Values, verify bool) (map[string]string, []Call, error) {
	b := e.newBudget(ctx)
	b.keep = verify
	out, t, err := e.run(c, top, b)
	if err != nil || len(b.sites) == 0 {
		return out, nil, err
	}
	if verify {
		e.verify(c, top, b, out)
	}
	return out, b.unstableCalls(t), nil
}

func (e *Engine) newBudget(ctx context.Context) *budget {
	b := &budget{ctx: ctx, made: made{maxPrinted: e.MaxPrinted}}
	if b.maxPrinted <= 0 {
		b.maxPrinted = DefaultMaxPrinted
	}
	return b
}

// run is one rendering of c with top within b, and the templates it ran.
func (e *Engine) run(c *chart.Chart, top chartutil.Values, b *budget) (out map[string]string, t *template.Template, err error) {
	srcs := sources(c, top)
	set := e.cache.get(srcs, e.CacheSize, e.funcs())
	if set.err != nil {
		return map[string]string{}, nil, set.err
	}
	defer func() {
		// text/template recovers what a function panics with, but not
		// runtime errors in its own evaluation.
		if p := recover(); p != nil {
			out, err = map[string]string{}, fmt.Errorf("rendering template failed: %v", p)
		}
	}()
	t, err = set.root.Clone()
	if err != nil {
		return map[string]string{}, nil, err
	}
	r := newRun(t, map[string]int{}, set.weights, b)
	t.Funcs(b.unstableFuncsFor(e.funcs()))
	out = make(map[string]string, len(srcs))
	for _, s := range srcs {
		if s.partial() {
			continue
		}
		// .Template is the template being run; include'd templates see the
		// one that included them, as in Helm, where the chart's data is
		// shared and set before each template runs.
		s.scope["Template"] = chartutil.Values{"Name": s.name, "BasePath": s.base}
		b.stack = append(b.stack[:0], s.name)
		b.frames = set.weights.get(s.name)
		if stackCheck != nil {
			b.base = realFrames()
		}
		buf := output{b: b}
		if err := r.t.ExecuteTemplate(&buf, s.name, chartutil.Values(s.scope)); err != nil {
			if errors.Is(err, errLimit) && !strings.Contains(err.Error(), s.name) {
				// Printing itself went over: say where.
				err = fmt.Errorf("template: %s: %w", s.name, err)
			}
			return map[string]string{}, nil, e.execError(s.name, err)
		}
		out[s.name] = strings.ReplaceAll(buf.String(), noValue, "")
	}
	return out, t, nil
}

// funcs is the function library of e's Helm version.
func (e *Engine) funcs() template.FuncMap {
	if e.Helm == 4 {
		return helm4Funcs()
	}
	return baseFuncs()
}

// execError is the message of a failed execution of the template name, as
// e's Helm version words it.
func (e *Engine) execError(name string, err error) error {
	if e.Helm == 4 {
		return traceError(name, err)
	}
	return execError(name, err)
}

// parse parses srcs, in order, into one template namespace with the
// function library fm, as every rendering of them starts from, and weighs
// its templates (stack.go).
func parse(srcs []source, fm template.FuncMap) (*template.Template, *weights, error) {
	root := template.New(rootName)
	root.Option("missingkey=zero")
	root.Funcs(fm)
	for _, s := range srcs {
		if err := checkControls(s.name, string(s.text)); err != nil {
			return nil, nil, err
		}
		if _, err := root.New(s.name).Parse(string(s.text)); err != nil {
			return nil, nil, parseError(s.name, err)
		}
	}
	return root, weigh(root, parsedAnew(root, func(*template.Template) bool { return true }), nil, false), nil
}
