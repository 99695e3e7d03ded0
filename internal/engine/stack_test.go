package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"text/template"
	tparse "text/template/parse"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// checkingStack runs fn with stackCheck failing t wherever the frames on
// the stack pass the frames counted for the calls running.
func checkingStack(t *testing.T, fn func()) {
	t.Helper()
	var worst, checks int
	stackCheck = func(counted int, frames func() int) {
		// Walking the stack costs its depth: the first calls are all
		// checked, then one in eight.
		if checks++; checks > 500 && checks%8 != 0 {
			return
		}
		real := frames()
		if real > counted {
			t.Errorf("%d frames on the stack, %d counted", real, counted)
		}
		if counted > 0 {
			worst = max(worst, 100*real/counted)
		}
	}
	defer func() { stackCheck = nil }()
	fn()
	t.Logf("%d calls; the stack held at most %d%% of the frames counted", checks, worst)
}

// deepTemplates are templates that nest every way text/template nests:
// control actions and else-if chains, parenthesized pipelines, template
// actions, include and tpl, inside each other, some recursive.
var deepTemplates = map[string]string{
	"ifs":        strings.Repeat("{{ if true }}", 100) + `{{ include "leaf" . }}` + strings.Repeat("{{ end }}", 100),
	"ranges":     strings.Repeat("{{ range until 1 }}", 100) + `{{ include "leaf" $ }}` + strings.Repeat("{{ end }}", 100),
	"range int":  strings.Repeat("{{ range $i := 1 }}", 100) + `{{ include "leaf" $ }}` + strings.Repeat("{{ end }}", 100),
	"withs":      strings.Repeat("{{ with . }}", 100) + `{{ include "leaf" . }}` + strings.Repeat("{{ end }}", 100),
	"else if":    "{{ if false }}" + strings.Repeat("{{ else if false }}", 100) + `{{ else }}{{ include "leaf" . }}{{ end }}`,
	"parens":     strings.Repeat("{{ print (", 1) + strings.Repeat("print (", 100) + `include "leaf" .` + strings.Repeat(")", 101) + " }}",
	"template":   `{{ define "r" }}{{ if lt (len .) 150 }}{{ template "r" (append . 1) }}{{ else }}{{ include "leaf" . }}{{ end }}{{ end }}{{ template "r" list }}`,
	"block":      `{{ block "b" . }}{{ with . }}{{ include "leaf" . }}{{ end }}{{ end }}`,
	"include":    `{{ define "i" }}{{ if lt (len .) 100 }}{{ include "i" (append . 1) }}{{ else }}{{ include "leaf" . }}{{ end }}{{ end }}{{ include "i" list }}`,
	"tpl":        `{{ define "t" }}{{ if lt (len .) 50 }}{{ tpl "{{ include \"t\" (append . 1) }}" . }}{{ else }}{{ include "leaf" . }}{{ end }}{{ end }}{{ include "t" list }}`,
	"tpl define": `{{ tpl "{{ define \"d\" }}{{ if lt (len .) 100 }}{{ template \"d\" (append . 1) }}{{ else }}{{ include \"leaf\" . }}{{ end }}{{ end }}{{ template \"d\" . }}" list }}`,
	"tpl chart":  `{{ define "c" }}{{ with . }}{{ include "leaf" . }}{{ end }}{{ end }}{{ tpl "{{ if true }}{{ template \"c\" . }}{{ end }}" . }}`,
	"mixed": `{{ define "m" }}{{ if lt (len .) 60 }}{{ range until 1 }}{{ with $ }}{{ template "m2" (append . 1) }}{{ end }}{{ end }}{{ else }}` +
		`{{ include "leaf" . }}{{ end }}{{ end }}{{ define "m2" }}{{ print (print (include "m" .)) }}{{ end }}{{ include "m" list }}`,
}

// TestStackWeights: the frames counted for running templates are never
// fewer than those on the stack, for templates that nest every way and
// for the community charts (FuzzStackWeights puts more together).
func TestStackWeights(t *testing.T) {
	var e Engine
	leaf := `{{ define "leaf" }}{{ if true }}{{ with . }}{{ print (print (print "leaf")) }}{{ end }}{{ end }}{{ end }}`
	checkingStack(t, func() {
		for name, text := range deepTemplates {
			c := oneTemplate(t, leaf+text, nil)
			if _, err := e.Render(c, topValues(t, c, nil)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, cc := range testtool.CommunityCharts {
			c := community(t, cc.Name)
			if _, err := e.Render(c, topValues(t, c, nil)); err != nil {
				t.Errorf("%s: %v", cc.Name, err)
			}
		}
	})
}

// TestNoStackOverflow: templates that overflowed Go's stack, which ends
// the process, fail their rendering with a limit's message instead:
// control actions nested deep inside a template that runs itself with
// template (2,000 deep nests 100 times; 20,000 deep once), the same given
// to tpl, a template tpl's text defines anew that a chart's template
// action runs, and else-if chains too long for the parser.
func TestNoStackOverflow(t *testing.T) {
	nested := func(n int) string {
		return `{{ define "t" }}` + strings.Repeat("{{ if true }}", n) + `{{ template "t" . }}` + strings.Repeat("{{ end }}", n) + `{{ end }}{{ template "t" . }}`
	}
	for name, tt := range map[string]struct {
		text   string
		values map[string]any
		want   string
	}{
		"template deep inside ifs":   {nested(2000), nil, "deeper than 1000000 Go stack frames"},
		"ifs past the limit":         {nested(20000), nil, "nest more than 10000 deep"},
		"tpl of template deep in if": {`{{ tpl .Values.t . }}`, map[string]any{"t": nested(2000)}, "deeper than 1000000 Go stack frames"},
		"tpl of ifs past the limit":  {`{{ tpl .Values.t . }}`, map[string]any{"t": nested(20000)}, "nest more than 10000 deep"},
		"tpl redefining a template": {`{{ define "y" }}{{ template "x" . }}{{ end }}{{ define "x" }}{{ end }}{{ tpl .Values.t . }}`,
			map[string]any{"t": `{{ define "x" }}` + strings.Repeat("{{ if true }}", 2000) + `{{ template "y" . }}` + strings.Repeat("{{ end }}", 2000) +
				`{{ end }}{{ template "y" . }}`}, "deeper than 1000000 Go stack frames"},
		"template through a range": {`{{ define "t" }}{{ range 1 }}{{ template "t" . }}{{ end }}{{ end }}{{ template "t" . }}`, nil,
			"deeper than 1000000 Go stack frames"},
		"ranges past the limit":   {strings.Repeat("{{ range 1 }}", 1001) + strings.Repeat("{{ end }}", 1001), nil, "range actions nest more than 1000 deep"},
		"else-if chain":           {"{{ if false }}" + strings.Repeat("{{ else if false }}", 200_000) + "{{ end }}", nil, "nest more than 10000 deep"},
		"tpl of an else-if chain": {`{{ tpl .Values.t . }}`, map[string]any{"t": strings.Repeat("{{ if false }}{{ else if false }}", 60_000)}, "nest more than 10000 deep"},
	} {
		t.Run(name, func(t *testing.T) {
			var e Engine
			c := oneTemplate(t, tt.text, nil)
			start := time.Now()
			_, err := e.Render(c, topValues(t, c, tt.values))
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the refusal took %v: it must not wait on the error unwinding nested ranges", d)
			}
			if err == nil || !errors.Is(err, errLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error: %.500v\nwant a limit error holding %q", err, tt.want)
			}
			if n := len(err.Error()); n > 4096 {
				t.Errorf("the message has %d bytes: %.500v", n, err)
			}
		})
	}
}

// TestStackActionsNotCallable: tpl's text cannot call the function of the
// actions that count a template's frames (a chart's templates cannot: it
// is not a function when charts are parsed).
func TestStackActionsNotCallable(t *testing.T) {
	var e Engine
	for _, text := range []string{fmt.Sprintf(`{{ tpl "{{ %s -100000 \"x\" }}" . }}`, stackFunc), fmt.Sprintf(`{{ %s -100000 "x" }}`, stackFunc)} {
		c := oneTemplate(t, text, nil)
		if _, err := e.Render(c, topValues(t, c, nil)); err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// TestRunFuncsFitTheirMap: a Helm 3 rendering's functions number at most
// 224, what Go's map holds in a 256-slot table. tpl copies them on every
// call, and past that the copies double: tpl-heavy renderings took a
// quarter longer with two functions more. Adding a function costs that.
// Helm 4's, with its own functions, are past it already: at most 448.
func TestRunFuncsFitTheirMap(t *testing.T) {
	b := &budget{ctx: context.Background(), made: made{maxPrinted: 1}}
	r := &run{budget: b}
	for helm, funcs := range map[int]template.FuncMap{3: baseFuncs(), 4: helm4Funcs()} {
		names := map[string]bool{}
		for _, fm := range []template.FuncMap{funcs, b.unstableFuncsFor(funcs), r.nestingFuncs(sprigFuncs()), r.stackFuncs(), {"include": nil, "tpl": nil}} {
			for name := range fm {
				names[name] = true
			}
		}
		if limit := map[int]int{3: 224, 4: 448}[helm]; len(names) > limit {
			t.Errorf("a Helm %d rendering has %d functions, over %d", helm, len(names), limit)
		}
	}
}

// FuzzControlNesting: for any text text/template parses, controlNesting
// counts at least the nesting of the control actions in its trees, which
// is how deep the parser and the execution recurse for them, and each
// level takes at least minControl bytes (checkControls does not scan
// shorter texts).
func FuzzControlNesting(f *testing.F) {
	for _, seed := range []string{
		"{{if 1}}{{else if 2}}{{else with 3}}{{end}}", "{{- /* {{if 1}} */ -}}{{ range . }}{{ end }}", "{{ \"{{end}}\" }}{{if 1}}{{if 2}}{{end}}{{end}}",
		"{{ `}}{{if 1}}` }}{{with 1}}{{end}}", "{{if.}}{{if.}}{{else if.}}{{end}}{{end}}", "{{define \"a\"}}{{block \"b\" .}}{{end}}{{end}}", "{{ '}' }}{{if 1}}{{end}}", "{{-\t/**/}}{{if 1}}{{end}}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tmpl, err := template.New("t").Funcs(baseFuncs()).Parse(text)
		if err != nil {
			return
		}
		deepest, deepestRange := 0, 0
		for _, tt := range tmpl.Templates() {
			if tt.Tree != nil && tt.Root != nil {
				deepest = max(deepest, treeControls(tt.Root, false))
				deepestRange = max(deepestRange, treeControls(tt.Root, true))
			}
		}
		if got, ranges := controlNesting(text, 1<<30); got < deepest || ranges < deepestRange {
			t.Errorf("controlNesting = %d, %d ranges; the trees nest %d control actions, %d ranges", got, ranges, deepest, deepestRange)
		}
		if deepest > len(text)/minControl {
			t.Errorf("%d bytes nest %d control actions: fewer than %d bytes each", len(text), deepest, minControl)
		}
	})
}

// treeControls is how deep the control actions of a parsed tree nest (an
// else-if link is an if inside the else list of the one before), or with
// ranges, only its range actions.
func treeControls(n tparse.Node, ranges bool) int {
	deepest, self := 0, 1
	if ranges {
		self = 0
	}
	switch n := n.(type) {
	case *tparse.ListNode:
		for _, c := range n.Nodes {
			deepest = max(deepest, treeControls(c, ranges))
		}
		return deepest
	case *tparse.IfNode:
		return self + branchControls(&n.BranchNode, ranges)
	case *tparse.RangeNode:
		return 1 + branchControls(&n.BranchNode, ranges)
	case *tparse.WithNode:
		return self + branchControls(&n.BranchNode, ranges)
	}
	return 0
}

func branchControls(b *tparse.BranchNode, ranges bool) int {
	deepest := 0
	if b.List != nil {
		deepest = treeControls(b.List, ranges)
	}
	if b.ElseList != nil {
		deepest = max(deepest, treeControls(b.ElseList, ranges))
	}
	return deepest
}

// FuzzStackWeights: the counted frames cover the stack for templates of
// nested include, template, tpl, control actions and pipelines that the
// fuzzer puts together.
func FuzzStackWeights(f *testing.F) {
	for _, seed := range []string{"", "\x00\x01\x02", "\x03\x13\x23\x33", "\x10\x21\x32\x43\x54", "\x06\x0e\x16\x1e\x26\x2e"} {
		f.Add([]byte(seed))
	}
	var e Engine
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 48 {
			t.Skip()
		}
		text := nestingTemplate(data)
		for i, c := range data {
			text = strings.Replace(text, "x", []string{"{{ if true }}x{{ end }}", "{{ range until 2 }}x{{ end }}", "{{ print (print (print 1)) }}",
				"{{ with . }}x{{ end }}", "{{ if false }}{{ else if true }}x{{ end }}", "x"}[(int(c)+i)%6], 1)
		}
		checkingStack(t, func() { _ = renderNesting(t, &e, text) })
	})
}

// BenchmarkTpl renders 200 tpl calls in a set of 300 templates: each call
// copies the set and its functions (TestRunFuncsFitTheirMap), and weighs
// what its text parsed.
func BenchmarkTpl(b *testing.B) {
	var defs strings.Builder
	for i := range 300 {
		fmt.Fprintf(&defs, `{{ define "h%d" }}{{ if .a }}{{ range .b }}{{ . }}{{ end }}{{ end }}{{ end }}`, i)
	}
	text := defs.String() + `{{ range until 200 }}{{ tpl "{{ .Values.x }}-{{ include \"h1\" (dict \"a\" 1 \"b\" (list 1 2)) }}" $ }}{{ end }}`
	var e Engine
	c := oneTemplate(b, text, nil)
	top := topValues(b, c, map[string]any{"x": "y"})
	for b.Loop() {
		if _, err := e.Render(c, top); err != nil {
			b.Fatal(err)
		}
	}
}
