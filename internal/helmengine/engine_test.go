package helmengine

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/repotool/repotool/internal/testtool"
)

func loadCommunity(t testing.TB, name string) *chart.Chart {
	t.Helper()
	c, err := loader.LoadDir(testtool.Community(t, name).Path(t))
	if err != nil {
		t.Fatal(err)
	}
	c.Metadata.Dependencies = nil // external-secrets' only one is disabled and not vendored
	return c
}

// renderValues are the values Helm's install passes to the engine.
func renderValues(t testing.TB, c *chart.Chart, vals map[string]any) chartutil.Values {
	t.Helper()
	if err := chartutil.ProcessDependenciesWithMerge(c, vals); err != nil {
		t.Fatal(err)
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(c, vals,
		chartutil.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities, true)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// TestLikeHelm: the Engine renders real charts, and a chart that fails in
// each of the ways a template can, exactly as Helm's engine does, the
// second time from the parsed templates kept from the first.
func TestLikeHelm(t *testing.T) {
	var e Engine
	check := func(t *testing.T, c *chart.Chart, vals map[string]any) {
		t.Helper()
		want, werr := engine.Render(c, renderValues(t, c, vals))
		for range 2 {
			got, err := e.Render(c, renderValues(t, c, vals))
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("error %v, Helm's engine: %v", err, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("renderings differ from Helm's engine")
			}
		}
	}
	for _, cc := range testtool.CommunityCharts {
		t.Run(cc.Name, func(t *testing.T) {
			check(t, loadCommunity(t, cc.Name), map[string]any{})
		})
	}
	failing := map[string]string{
		"fail":      `{{ fail "on purpose" }}`,
		"required":  `{{ required "x is required" .Values.x }}`,
		"tpl":       `{{ tpl "{{ if }}" . }}`,
		"exec":      `{{ index .Values.list 5 }}`,
		"nil":       `{{ .Values.nope.deeper }}`,
		"recursion": `{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}`,
		"parse":     `{{ if .Values.x }}`,
		"include":   `{{ include "missing" . }}`,
	}
	for name, tpl := range failing {
		t.Run(name, func(t *testing.T) {
			c := &chart.Chart{
				Metadata:  &chart.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"},
				Templates: []*chart.File{{Name: "templates/t.yaml", Data: []byte(tpl)}, {Name: "templates/ok.yaml", Data: []byte("kind: A\n")}},
			}
			check(t, c, map[string]any{"list": []any{1}})
		})
	}
}

// TestParsedOnce: renderings of the same templates share one parsed set,
// whatever the values; other template contents under the same names get
// their own.
func TestParsedOnce(t *testing.T) {
	var e Engine
	mk := func(text string) *chart.Chart {
		return &chart.Chart{
			Metadata:  &chart.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"},
			Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(text)}},
		}
	}
	a, b := mk("a: {{ .Values.v }}\n"), mk("b: {{ .Values.v }}\n")
	for i, tc := range []struct {
		c    *chart.Chart
		v    string
		want string
		sets int
	}{
		{a, "1", "a: 1\n", 1},
		{a, "2", "a: 2\n", 1},
		{b, "3", "b: 3\n", 2},
		{mk("a: {{ .Values.v }}\n"), "4", "a: 4\n", 2},
	} {
		out, err := e.Render(tc.c, renderValues(t, tc.c, map[string]any{"v": tc.v}))
		if err != nil {
			t.Fatal(err)
		}
		if got := out["app/templates/cm.yaml"]; got != tc.want {
			t.Errorf("%d: %q, want %q", i, got, tc.want)
		}
		if n := e.lru.Len(); n != tc.sets {
			t.Errorf("%d: %d parsed sets kept, want %d", i, n, tc.sets)
		}
	}
}

// TestCacheSize: the parsed sets kept stay within CacheSize, least
// recently used out first; a negative size keeps none.
func TestCacheSize(t *testing.T) {
	e := Engine{CacheSize: 100}
	for i := range 10 {
		text := fmt.Sprintf("n: %d%040d\n", i, 0)
		c := &chart.Chart{
			Metadata:  &chart.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"},
			Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(text)}},
		}
		if _, err := e.Render(c, renderValues(t, c, map[string]any{})); err != nil {
			t.Fatal(err)
		}
		if e.bytes > e.CacheSize {
			t.Fatalf("%d bytes kept, more than %d", e.bytes, e.CacheSize)
		}
	}
	if n := e.lru.Len(); n != 1 {
		t.Errorf("%d sets kept, want 1 (each is 60 bytes)", n)
	}
	none := Engine{CacheSize: -1}
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("a: b\n")}}}
	if _, err := none.Render(c, renderValues(t, c, map[string]any{})); err != nil {
		t.Fatal(err)
	}
	if none.lru.Len() != 0 {
		t.Error("a negative CacheSize kept a set")
	}
}

// TestConcurrent: renderings of one chart at once, each with its own
// values, from one parsed set (run with -race).
func TestConcurrent(t *testing.T) {
	var e Engine
	c := loadCommunity(t, "ingress-nginx")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := *c
			vals := map[string]any{"controller": map[string]any{"replicaCount": i + 1}}
			top := renderValues(t, &cc, vals)
			out, err := e.Render(&cc, top)
			if err != nil {
				errs[i] = err
				return
			}
			want := fmt.Sprintf("replicas: %d\n", i+1)
			if d := out["ingress-nginx/templates/controller-deployment.yaml"]; !strings.Contains(d, want) {
				errs[i] = fmt.Errorf("rendering %d lacks %q", i, want)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkRender renders ingress-nginx with Helm's engine (every template
// parsed per rendering) and with Engine (parsed once).
func BenchmarkRender(b *testing.B) {
	c := loadCommunity(b, "ingress-nginx")
	top := renderValues(b, c, map[string]any{})
	b.Run("helm", func(b *testing.B) {
		for b.Loop() {
			if _, err := engine.Render(c, top); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("helmengine", func(b *testing.B) {
		var e Engine
		for b.Loop() {
			if _, err := e.Render(c, top); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// copiedFrom is the Helm release engine.go, funcs.go and files.go come from.
const copiedFrom = "v3.22.0"

// TestHelmVersion: the Helm module the build uses is the release this
// package was copied from. When go.mod moves Helm, compare Helm's
// pkg/engine between the two releases, carry its changes over, and update
// copiedFrom and the notices.
func TestHelmVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testtool.ModuleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*helm\.sh/helm/v3 (v\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod does not require helm.sh/helm/v3")
	}
	if v := string(m[1]); v != copiedFrom {
		t.Fatalf("go.mod requires Helm %s; internal/helmengine is Helm %s's pkg/engine: carry Helm's changes over", v, copiedFrom)
	}
}
