package render

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	helm4util "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/manifest"
)

// helmOutput is what `helm template` prints for rendered templates (no
// CRDs), with Helm's own sort (Helm 4's with helm4): renderResources'
// manifests, trimmed, then the hooks.
func helmOutput(files map[string]string, helm4 bool) ([]byte, error) {
	var manifests, hooks []part
	if helm4 {
		hs, ms, err := helm4util.SortManifests(files, nil, helm4util.InstallOrder)
		if err != nil {
			return nil, err
		}
		manifests = parts(ms, func(m helm4util.Manifest) part { return part{m.Name, m.Content} })
		hooks = parts(hs, func(h *release4.Hook) part { return part{h.Path, h.Manifest} })
	} else {
		hs, ms, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
		if err != nil {
			return nil, err
		}
		manifests = parts(ms, func(m releaseutil.Manifest) part { return part{m.Name, m.Content} })
		hooks = parts(hs, func(h *release.Hook) part { return part{h.Path, h.Manifest} })
	}
	var b bytes.Buffer
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.source, m.text)
	}
	out := bytes.NewBuffer(append(bytes.TrimSpace(b.Bytes()), '\n'))
	for _, h := range hooks {
		fmt.Fprintf(out, "---\n# Source: %s\n%s\n", h.source, h.text)
	}
	return out.Bytes(), nil
}

// part is a sorted document as `helm template` prints it: its template
// and its text.
type part struct{ source, text string }

// parts are each of Helm's sorted documents or hooks as a part.
func parts[T any](sorted []T, of func(T) part) []part {
	out := make([]part, len(sorted))
	for i, x := range sorted {
		out[i] = of(x)
	}
	return out
}

// checkSort requires sortDocs and assemble to print what Helm (Helm 4
// with helm4) prints for files, or fail as Helm fails, and the objects to
// be those of the stream read again.
func checkSort(t *testing.T, files map[string]string, helm4 bool) {
	t.Helper()
	want, herr := helmOutput(files, helm4)
	docs, hooks, err := sortDocs(files, helm4, manifest.Decode)
	if herr != nil {
		if err == nil || err.Error() != herr.Error() {
			t.Fatalf("Helm fails with %q, sortDocs with %v", herr, err)
		}
		return
	}
	if err != nil {
		// Helm sorts it, but a document is not an object repotool can
		// read: reading Helm's stream fails too.
		if _, rerr := manifest.Read(want); rerr == nil {
			t.Fatalf("sortDocs: %v; Helm sorts it and its stream reads", err)
		}
		return
	}
	got, objs, err := assemble(&chart.Chart{Metadata: &chart.Metadata{Name: "x"}}, docs, hooks, false)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from Helm's sort:\n--- helm\n%q\n--- repotool\n%q", want, got)
	}
	again, err := manifest.Read(got)
	if err != nil {
		t.Fatalf("the stream does not read again: %v", err)
	}
	if !reflect.DeepEqual(objs, again) {
		t.Fatalf("objects differ from the stream's:\n%#v\n%#v", objs, again)
	}
}

func TestSortDocsLikeHelm(t *testing.T) {
	log.SetOutput(io.Discard) // Helm's sort logs the unknown hook
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	quietSlog(t) // and Helm 4's, through slog
	for name, files := range map[string]map[string]string{
		"kinds": {
			"x/templates/a.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
			"x/templates/b.yaml": "kind: Zeta\napiVersion: z/v1\n---\nkind: Alpha\napiVersion: a/v1\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n---\nkind: Alpha\napiVersion: a/v2\n",
		},
		"hooks": {
			"x/templates/job.yaml":     "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install, POST-upgrade\n    helm.sh/hook-weight: \"-5\"\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n    helm.sh/hook: pre-install\n",
			"x/templates/unknown.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u\n  annotations:\n    helm.sh/hook: pre-install,sometime\n",
			"x/templates/null.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\n  annotations:\n    helm.sh/hook: null\n    other: null\n",
			"x/templates/plain.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n  annotations: {a: b}\n",
		},
		"separators": {
			"x/templates/a.yaml": "---\n--- # a comment\napiVersion: v1\nkind: A\n  \n \t---\napiVersion: v1\nkind: B\n----\nkind: C\n---kind: D\n",
			"x/templates/b.yaml": "\n\n# only a comment\n---\n\n---\n",
			"x/templates/c.yaml": "---\n---\n---",
			"x/templates/d.yaml": "kind: E\r\n---\r\nkind: F\r\n",
			"x/templates/e.yaml": "kind: G\n\v---\nkind: H\n",
		},
		"partials and empty": {
			"x/templates/_helpers.tpl": "kind: Ignored\n",
			"x/templates/empty.yaml":   " \n\t\n",
			"x/templates/one.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n",
		},
		"annotation not a string": {"x/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    n: 1\n"},
		"apiVersion a number":     {"x/templates/a.yaml": "apiVersion: 1\nkind: ConfigMap\n"},
		"metadata a list":         {"x/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n"},
		"name a map":              {"x/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {a: b}\n"},
		"not YAML":                {"x/templates/a.yaml": "apiVersion: v1\nkind: [\n", "x/templates/b.yaml": "kind: B\n"},
		"a list":                  {"x/templates/a.yaml": "- a\n- b\n"},
		"a scalar":                {"x/templates/a.yaml": "just text\n"},
		"webhooks": {
			"x/templates/a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: v\n---\napiVersion: example.com/v1\nkind: Aardvark\nmetadata:\n  name: a\n",
			"x/templates/b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: m\n---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: api\n\n\n",
		},
		"trailing blank lines": {
			"x/templates/a.yaml": "\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n\n\n---\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  \n",
			"x/templates/h.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: h\n  annotations:\n    helm.sh/hook: post-install\n\n---   \napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: h2\n  annotations:\n    helm.sh/hook: post-install\n",
		},
	} {
		for _, helm4 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/helm4=%v", name, helm4), func(t *testing.T) { checkSort(t, files, helm4) })
		}
	}
}

// quietSlog sends slog's default logger nowhere for the test: Helm 4's
// sort logs the unknown hooks it skips.
func quietSlog(t testing.TB) {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slog.SetDefault(old) })
}

// FuzzSortDocs: for any two rendered templates, sortDocs and assemble print
// what Helm's sort prints, or fail as it fails, and the objects are those of
// the stream.
func FuzzSortDocs(f *testing.F) {
	log.SetOutput(io.Discard)
	f.Add("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\nkind: Pod\n", "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: test\n")
	f.Add("---\n--- x\n\n---", "a: b\n \n---\n")
	f.Add("kind: A\nmetadata: {annotations: {helm.sh/hook: 'x'}}", "kind: [")
	quietSlog(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		files := map[string]string{"x/templates/a.yaml": a, "x/charts/y/templates/b.yaml": b}
		checkSort(t, files, false)
		checkSort(t, files, true)
	})
}

// FuzzSplitManifests: splitManifests splits as releaseutil.SplitManifests.
func FuzzSplitManifests(f *testing.F) {
	for _, s := range []string{"", "---", "a\n---\nb", "  ---x\n \n---\n\n--- y", "a \t\r\n---\f\n---", "a\v\n---b", "\n---\n---\n", "x: |\n  ---\n  a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameSplit(t, s, splitManifests(s), releaseutil.SplitManifests(s)) })
}

// sameSplit requires got, repotool's split of s, to be want, Helm's.
func sameSplit(t *testing.T, s string, got []string, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%q: %d documents, Helm %d: %q", s, len(got), len(want), want)
	}
	for i, d := range got {
		if w := want[fmt.Sprintf("manifest-%d", i)]; d != w {
			t.Fatalf("%q: document %d is %q, Helm's %q", s, i, d, w)
		}
	}
}

// FuzzSplitManifests4: splitManifests4 splits as Helm 4's
// SplitManifests.
func FuzzSplitManifests4(f *testing.F) {
	for _, s := range []string{"", "---", "a\n---\nb\n\n", "  ---x\n \n---\n\n--- y", "a \t\r\n---\f\n---", "a\v\n---b", "\n---\n---\n", "x: |\n  ---\n  a\n", "------\n---\t \n", "\u00a0---\n\u2028a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameSplit(t, s, splitManifests4(s), helm4util.SplitManifests(s)) })
}

func TestSplitManifestsLikeHelm(t *testing.T) {
	for _, s := range []string{"a\n---\nb\n", strings.Repeat("kind: A\n---\n", 3), "---\n--- # c\nkind: B"} {
		want := releaseutil.SplitManifests(s)
		if got := splitManifests(s); len(got) != len(want) {
			t.Errorf("%q: %q, Helm %q", s, got, want)
		}
	}
}

// BenchmarkSortAndParse sorts and parses the rendered templates of
// ingress-nginx: "helm" as Helm's SortManifests, then the stream read again
// (the path before), "repotool" as sortDocs and assemble (one parse).
func BenchmarkSortAndParse(b *testing.B) {
	c, err := loader.LoadDir(testtool.Community(b, "ingress-nginx").Path(b))
	if err != nil {
		b.Fatal(err)
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(c, map[string]any{},
		chartutil.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities, true)
	if err != nil {
		b.Fatal(err)
	}
	files, err := engine.Render(c, top)
	if err != nil {
		b.Fatal(err)
	}
	for k := range files {
		if strings.HasSuffix(k, notesSuffix) {
			delete(files, k) // as template does
		}
	}
	b.Run("helm", func(b *testing.B) {
		for b.Loop() {
			out, err := helmOutput(files, false)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := manifest.Read(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("repotool", func(b *testing.B) {
		for b.Loop() {
			docs, hooks, err := sortDocs(files, false, manifest.Decode)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := assemble(c, docs, hooks, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMissingDependencies checks the declared-dependency check against
// Helm's own (action.CheckDependencies, what helm template runs).
func TestMissingDependencies(t *testing.T) {
	chartOf := func(name string, subs ...string) *chart.Chart {
		c := &chart.Chart{Metadata: &chart.Metadata{Name: name, Version: "1.0.0", APIVersion: "v2"}}
		for _, s := range subs {
			c.AddDependency(&chart.Chart{Metadata: &chart.Metadata{Name: s, Version: "1.0.0", APIVersion: "v2"}})
		}
		return c
	}
	deps := func(names ...string) []*chart.Dependency {
		var out []*chart.Dependency
		for _, n := range names {
			out = append(out, &chart.Dependency{Name: n, Version: "1.0.0"})
		}
		return out
	}
	tests := []struct {
		loaded, declared []string
	}{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{nil, []string{"a"}},
		{[]string{"b"}, []string{"a", "b", "c"}},
		{[]string{"a", "b"}, []string{"c", "a", "d"}},
		{[]string{"x"}, nil},
	}
	for _, tt := range tests {
		c := chartOf("app", tt.loaded...)
		got := missingDependencies(c, deps(tt.declared...))
		want := action.CheckDependencies(c, deps(tt.declared...))
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("loaded %v, declared %v: %v, helm: %v", tt.loaded, tt.declared, got, want)
		}
	}
}
