package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDepthLimits: templates that run each other without end fail their
// rendering with a short message naming the template and the limit, where
// they ended the process before. (A values string `{{ tpl .Values.rec . }}`
// rendered with tpl overflowed the stack at 5.9 GB in lint and render
// --all, Helm 3 and Helm 4 alike; a chain of include through many names
// built a failure message of tens of gigabytes; template actions tens of
// thousands deep in each of a few nested includes overflowed the stack.)
func TestDepthLimits(t *testing.T) {
	var cycle strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&cycle, `{{ define "d%d" }}{{ include "d%d" . }}{{ end }}`, i, (i+1)%1500)
	}
	bigText := `{{ tpl .Values.big . }}` + strings.Repeat("x", 1<<20)
	tests := []struct {
		name, text string
		values     map[string]any
		want       string
	}{
		{"tpl of a value that tpls itself", `{{ tpl .Values.rec . }}`, map[string]any{"rec": "{{ tpl .Values.rec . }}"},
			"tpl calls ran inside each other more than 100 deep: does a value's text tpl itself? (repotool's limit), at tpl"},
		{"tpl of a text that tpls itself", `{{ $t := "{{ tpl .t . }}" }}{{ tpl $t (dict "t" $t) }}`, nil, "tpl calls ran inside each other more than 100 deep"},
		{"tpl through include", `{{ define "r" }}{{ tpl "{{ include \"r\" . }}" . }}{{ end }}{{ include "r" . }}`, nil, "tpl calls ran inside each other more than 100 deep"},
		{"tpl of a large text that tpls itself", `{{ tpl .Values.big . }}`, map[string]any{"big": bigText}, "tpl calls ran inside each other more than 100 deep"},
		{"include through many names", cycle.String() + `{{ include "d0" . }}`, nil,
			"include and tpl calls ran inside each other more than 1200 deep: does a template include or tpl itself without end? (repotool's limit), at include \"d"},
		{"template actions deep inside each include", `{{ define "t" }}{{ if lt (int .n) 40000 }}{{ template "t" (dict "n" (add1 .n) "i" .i) }}` +
			`{{ else if lt (int .i) 30 }}{{ include "t" (dict "n" 0 "i" (add1 .i)) }}{{ end }}{{ end }}{{ include "t" (dict "n" 0 "i" 0) }}`, nil,
			"the templates ran inside each other deeper than 1000000 Go stack frames"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Engine
			c := oneTemplate(t, tt.text, nil)
			_, err := e.Render(c, topValues(t, c, tt.values))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error: %.2000v\nwant it to hold %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "template: app/templates/t.yaml:1:") {
				t.Errorf("the message does not start with the template and line: %.2000v", err)
			}
			if !errors.Is(err, errLimit) {
				t.Errorf("not a limit error: %.2000v", err)
			}
			if n := len(err.Error()); n > 4096 {
				t.Errorf("the message has %d bytes, want one line: %.2000v", n, err)
			}
		})
	}
}

// TestWithinDepthLimits: nesting short of the limits renders as Helm's
// engine does, messages included: tpl 99 deep, include through two names
// 1,100 deep in all, include of one name 1,001 deep from inside a tpl, and a
// failure 90 tpl calls down, each quoting its text.
func TestWithinDepthLimits(t *testing.T) {
	var e Engine
	defs := `{{ define "a" }}{{ if lt (len .) 550 }}{{ include "b" (append . 1) }}{{ else }}{{ len . }}{{ end }}{{ end }}` +
		`{{ define "b" }}{{ include "a" . }}{{ end }}` +
		`{{ define "deep" }}{{ if lt (len .) 1001 }}{{ include "deep" (append . 1) }}{{ else }}{{ len . }}{{ end }}{{ end }}` +
		`{{ define "tpls" }}{{ if lt (int .n) .stop }}{{ tpl "{{ include \"tpls\" (dict \"n\" (add1 .n) \"stop\" .stop) }}" . }}{{ else }}{{ fail "at the bottom" }}{{ end }}{{ end }}` +
		`{{ define "tpl99" }}{{ if lt (int .n) 99 }}{{ tpl "{{ include \"tpl99\" (dict \"n\" (add1 .n)) }}" . }}{{ else }}{{ .n }}{{ end }}{{ end }}`
	for name, text := range map[string]string{
		"tpl 99 deep":                `{{ include "tpl99" (dict "n" 0) }}`,
		"two names 1100 deep in all": `{{ include "a" (list) }}`,
		"one name 1001 deep":         `{{ tpl "{{ include \"deep\" (list) }}" . }}`,
		"failure 90 tpl calls down":  `{{ include "tpls" (dict "n" 0 "stop" 90) }}`,
	} {
		t.Run(name, func(t *testing.T) {
			sameAsHelm(t, &e, oneTemplate(t, defs+text, nil), nil)
		})
	}
}

// TestDepthStopsWithContext: templates that only include each other,
// printing nothing, stop when the rendering is given up.
func TestDepthStopsWithContext(t *testing.T) {
	var e Engine
	c := oneTemplate(t, `{{ define "x" }}{{ range until 1000 }}{{ include "y" . }}{{ end }}{{ end }}`+
		`{{ define "y" }}{{ range until 1000 }}{{ $_ := include "z" . }}{{ end }}{{ end }}{{ define "z" }}{{ end }}`+
		`{{ range until 1000 }}{{ $_ := include "x" . }}{{ end }}`, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	time.AfterFunc(100*time.Millisecond, func() { cancel(stop) })
	if _, err := e.RenderContext(ctx, c, topValues(t, c, nil)); !errors.Is(err, stop) {
		t.Errorf("error: %v, want the context's cause", err)
	}
}

// FuzzNesting drives combinations of define, include, tpl and template
// actions, nested and recursive, from a few bytes: whatever they make, the
// rendering returns (output or a message), within a time limit, and never
// ends the process.
func FuzzNesting(f *testing.F) {
	for _, seed := range []string{"", "\x00\x01\x02", "\x03\x03\x03\x03", "\x10\x21\x32\x43\x54", "\xff\xfe\xfd\x00\x11", "\x05\x0a\x0f\x14\x19\x1e\x23"} {
		f.Add([]byte(seed))
	}
	var e Engine
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			t.Skip()
		}
		err := renderNesting(t, &e, nestingTemplate(data))
		if err != nil && strings.Contains(err.Error(), "repotool's limit") && !errors.Is(err, errLimit) {
			t.Errorf("a limit's message without its error: %v", err)
		}
	})
}

// nestingTemplate builds, from data, four defines n0..n3 whose bodies call
// each other with include, template and tpl (of a value that tpls itself,
// or of a text that includes a define), and a top level that calls one.
// renderNesting renders text as a chart's one template, within five
// seconds, with values for nestingTemplate's tpl calls.
func renderNesting(t *testing.T, e *Engine, text string) error {
	c := oneTemplate(t, text, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := e.RenderContext(ctx, c, topValues(t, c, map[string]any{"self": "{{ tpl .Values.self . }}", "inc": `{{ include "n0" . }}`}))
	return err
}

func nestingTemplate(data []byte) string {
	calls := []func(int) string{
		func(k int) string { return fmt.Sprintf(`{{ include "n%d" . }}`, k) },
		func(k int) string { return fmt.Sprintf(`{{ template "n%d" . }}`, k) },
		func(int) string { return `{{ tpl .Values.self . }}` },
		func(int) string { return `{{ tpl .Values.inc . }}` },
		func(k int) string { return fmt.Sprintf(`{{ tpl "{{ include \"n%d\" . }}" . }}`, k) },
		func(k int) string { return fmt.Sprintf(`{{ range until 3 }}{{ include "n%d" $ }}{{ end }}`, k) },
		func(int) string { return `x` },
		func(k int) string { return fmt.Sprintf(`{{ define "n%d" }}redefined{{ end }}`, k) },
	}
	var b strings.Builder
	body := [4]strings.Builder{}
	for i, c := range data {
		body[i%4].WriteString(calls[int(c)%len(calls)](int(c>>3) % 4))
	}
	for i := range body {
		fmt.Fprintf(&b, `{{ define "n%d" }}%s{{ end }}`, i, body[i].String())
	}
	b.WriteString(`{{ include "n0" . }}`)
	return b.String()
}

// TestTOMLDepth: brackets in strings and comments do not count, table
// headers do not nest, and fromToml within the depth is Helm's.
func TestTOMLDepth(t *testing.T) {
	for doc, want := range map[string]int{
		"": 0,
		"[table]\na = 1\n[[list]]\nb = [1, [2]]\n": 2,
		`a = "[[[[{{{"` + "\n":                     0,
		`a = 'x[[[' # [[[[` + "\n":                 0,
		`a = """` + "\n[[[\"\n\"\"\"\nb = [[1]]":   2,
		`a = "\"[[" ` + "\nb = {c = {d = [1]}}":    3,
		"a = [[[[[":                                5,
		`a = "unterminated [[[`:                    0,
	} {
		if got := tomlDepth(doc); got != want {
			t.Errorf("tomlDepth(%q) = %d, want %d", doc, got, want)
		}
	}
	var e Engine
	deep := "a = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\nb = { c = \"[[[\" }\n"
	sameAsHelm(t, &e, oneTemplate(t, `{{ fromToml .Values.doc | toJson }}`, nil), map[string]any{"doc": deep})
}
