package render_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// valuesCases are values files that fail to render, as Helm 3, Helm 4 or
// both read them, and ones that render; every one that fails must be a
// layout error first.
var valuesCases = map[string]struct {
	content string
	fails   [2]bool // renders as Helm 3, Helm 4
}{
	"mapping":                  {"greeting: hi\nsize: 3\n", [2]bool{false, false}},
	"empty":                    {"", [2]bool{false, false}},
	"comment only":             {"# nothing\n", [2]bool{false, false}},
	"syntax":                   {"greeting: hi\n  bad: indentation\n", [2]bool{true, true}},
	"tab indentation":          {"a:\n\tb: 1\n", [2]bool{true, true}},
	"scalar":                   {"just a string\n", [2]bool{true, true}},
	"list":                     {"- a\n- b\n", [2]bool{true, true}},
	"invalid UTF-8":            {"greeting: \xff\xfe\n", [2]bool{true, true}},
	"binary":                   {"\x00\x01\x02", [2]bool{true, true}},
	"complex key":              {"? [a, b]\n: 1\n", [2]bool{true, true}},
	"unknown anchor":           {"a: *nowhere\n", [2]bool{true, true}},
	"merge of a scalar":        {"a: &a 1\nb:\n  <<: *a\n", [2]bool{true, true}},
	"alias bomb":               {aliasBomb, [2]bool{true, true}},
	"infinity":                 {"a: .inf\n", [2]bool{true, true}},
	"float out of range":       {"a: 1e400\n", [2]bool{false, false}},
	"null key":                 {"~: 1\n", [2]bool{true, true}},
	"second document scalar":   {"a: 1\n---\njust a string\n", [2]bool{false, true}},
	"second document syntax":   {"a: 1\n---\nb: 1\n  c: 2\n", [2]bool{false, true}},
	"second document list":     {"a: 1\n---\n- x\n", [2]bool{false, true}},
	"second document bomb":     {"a: 1\n---\n" + aliasBomb, [2]bool{false, true}},
	"two mappings":             {"a: 1\n---\nb: 2\n", [2]bool{false, false}},
	"aliases within the limit": {"a: &a {x: 1, y: [1, 2]}\nb: *a\nc:\n  <<: *a\n  z: 3\n", [2]bool{false, false}},
}

const aliasBomb = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

// TestValuesFailuresAreLayoutErrors: every way a values file fails to
// load in render, as either Helm reads it, is a layout error about that
// file, so that layout and generate fail it too (before, an alias bomb
// passed layout and generate, and under Helm 4 a broken second document
// passed layout and lint).
func TestValuesFailuresAreLayoutErrors(t *testing.T) {
	for name, c := range valuesCases {
		for i, helm := range []string{render.HelmV3, render.HelmV4} {
			t.Run(name+"/"+helm, func(t *testing.T) {
				renderErr, layoutErrs := loadValues(t, helm, []byte(c.content))
				if (renderErr != nil) != c.fails[i] {
					t.Errorf("render: %v, want failing %v", renderErr, c.fails[i])
				}
				if renderErr != nil && len(layoutErrs) == 0 {
					t.Errorf("render fails (%v), the layout has no error about the file", renderErr)
				}
			})
		}
	}
}

// FuzzValuesLoad: whatever a values file holds, if rendering cannot read
// it, the layout reports it.
func FuzzValuesLoad(f *testing.F) {
	for _, c := range valuesCases {
		f.Add([]byte(c.content), false)
		f.Add([]byte(c.content), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, helm4 bool) {
		if len(data) > 4096 {
			t.Skip()
		}
		helm := render.HelmV3
		if helm4 {
			helm = render.HelmV4
		}
		if renderErr, layoutErrs := loadValues(t, helm, data); renderErr != nil && len(layoutErrs) == 0 {
			t.Errorf("render fails (%v), the layout has no error about the file", renderErr)
		}
	})
}

// loadValues loads a repository whose one target has data as a values
// file, as the given Helm reads it, and renders the target as if the
// layout had passed it: it returns the rendering's failure to read the
// values and the layout's errors about the file.
func loadValues(t *testing.T, helm string, data []byte) (error, []layout.Diagnostic) {
	t.Helper()
	const file = "clusters/dev/app/dev-values-app.yaml"
	fsys := fstest.MapFS{
		"namespaces/app/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/app/templates/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")},
		file:                               {Data: data},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{Helm: helm})
	if err != nil {
		t.Fatal(err)
	}
	var errs []layout.Diagnostic
	for _, d := range repo.Diagnostics {
		if d.File == file && d.Severity == layout.SeverityError {
			errs = append(errs, d)
		}
	}
	target, ok := repo.Target("dev", "app")
	if !ok {
		t.Fatal("no target")
	}
	passed := *target
	passed.Errors = nil
	opts := render.DefaultOptions()
	opts.Helm = helm
	res, err := render.New(repo, opts).Render(context.Background(), &passed)
	if err == nil {
		err = res.Err
	}
	if err != nil && !strings.Contains(err.Error(), file) {
		t.Fatalf("render fails for another reason than the values file: %v", err)
	}
	return err, errs
}
