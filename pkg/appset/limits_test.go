package appset

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// TestLimits: a template is repository content, so one that would loop
// for ever, fill memory or give another value each run is an error.
func TestLimits(t *testing.T) {
	old := maxRenderTime
	t.Cleanup(func() { maxRenderTime = old })
	tests := []struct{ name, tmpl, msg string }{
		// The one case the time bound ends (made short here); the others
		// end on their own bounds, within any time (-race is slow).
		{"a loop that never ends", `{{range until 90000}}{{range until 90000}}{{range until 90000}}{{end}}{{end}}{{end}}`, "renders for more than"},
		{"a list too long", `{{until 1000000000}}`, "more than 100000 items"},
		{"untilStep too long", `{{untilStep 0 1000000000 1}}`, "more than 100000 items"},
		{"a string too long", `{{repeat 100000000 "x"}}`, "more than 100000 items"},
		{"output too large", `{{range until 90000}}{{repeat 1000 "x"}}{{end}}`, "renders more than"},
		{"chance", `{{randAlphaNum 8}}`, "randAlphaNum gives another value"},
		{"the clock", `{{now}}`, "now gives another value"},
		{"tpl calling itself", `{{tpl "{{tpl \"{{tpl \\\"{{tpl \\\\\\\"x\\\\\\\" .}}\\\" .}}\" .}}" .}}`, "maximum recursion depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxRenderTime = time.Minute
			if strings.HasPrefix(tt.name, "a loop") {
				maxRenderTime = 200 * time.Millisecond
			}
			r := renderer{ctx: context.Background(), goTemplate: true}
			_, err := r.replace(tt.tmpl, map[string]any{"a": "b"})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want an error saying %q", err, tt.msg)
			}
		})
	}
}

// TestCancel: Ctrl-C ends an expansion.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var doc yaml.Node
	src := "kind: ApplicationSet\nspec:\n  generators: [{list: {elements: [{a: b}]}}]\n  template: {metadata: {name: x}}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := Expand(ctx, doc.Content[0], testEnv(nil))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// FuzzExpand: no ApplicationSet makes Expand panic or hang.
func FuzzExpand(f *testing.F) {
	f.Add("spec:\n  goTemplate: true\n  generators: [{list: {elements: [{a: b}]}}]\n  template: {metadata: {name: '{{.a}}'}}\n")
	f.Add("spec:\n  generators: [{matrix: {generators: [{clusters: {}}, {git: {repoURL: https://git.example/repo.git, files: [{path: '*'}]}}]}}]\n" +
		"  template: {metadata: {name: '{{name}}'}}\n  templatePatch: 'spec: {x: 1}'\n")
	f.Add("spec:\n  generators: [{merge: {mergeKeys: [a], generators: [{list: {elements: [{a: b}]}}, {list: {elementsYaml: '- a: b'}}]}}]\n" +
		"  template: {metadata: {name: x}}\n")
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(src), &doc) != nil || len(doc.Content) == 0 {
			return
		}
		files := map[string]string{"a/b.yaml": "x: 1\n", "c/d.json": "[{\"y\": 2}]"}
		res, err := Expand(context.Background(), doc.Content[0], testEnv(files))
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("an error without a line: %v", err)
		}
		if err == nil && len(res.Apps) > MaxApplications {
			t.Fatalf("%d Applications", len(res.Apps))
		}
	})
}
