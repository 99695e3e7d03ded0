package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	helmengine "helm.sh/helm/v3/pkg/engine"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// Helm's own engine (helm.sh/helm/v3/pkg/engine) is the oracle of these
// tests: every rendering here is compared with what it gives for the same
// chart and values, output and message.

// load builds a chart from files by path ("Chart.yaml",
// "charts/sub/templates/x.yaml"), as Helm's loader reads a folder.
func load(t testing.TB, files map[string]string) *chart.Chart {
	t.Helper()
	var bf []*loader.BufferedFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		bf = append(bf, &loader.BufferedFile{Name: name, Data: []byte(files[name])})
	}
	c, err := loader.LoadFiles(bf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// oneTemplate is a chart whose only template is text, with extra files.
func oneTemplate(t testing.TB, text string, extra map[string]string) *chart.Chart {
	files := map[string]string{
		"Chart.yaml":       "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"templates/t.yaml": text,
	}
	maps.Copy(files, extra)
	return load(t, files)
}

// community is a chart of the corpus, loaded as Helm loads it.
func community(t testing.TB, name string) *chart.Chart {
	t.Helper()
	return load(t, testtool.Community(t, name).Files(t))
}

// topValues is what Helm's install gives the engine for c with vals:
// dependencies processed, values coalesced with the charts' defaults.
func topValues(t testing.TB, c *chart.Chart, vals map[string]any) chartutil.Values {
	t.Helper()
	if err := chartutil.ProcessDependenciesWithMerge(c, vals); err != nil {
		t.Fatal(err)
	}
	top, err := chartutil.ToRenderValues(c, vals,
		chartutil.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// rendering is an engine's output, or its message.
type rendering struct {
	out map[string]string
	err string
}

func (r rendering) String() string {
	if r.err != "" {
		return "error: " + r.err
	}
	var s string
	for _, k := range slices.Sorted(maps.Keys(r.out)) {
		s += fmt.Sprintf("--- %s\n%s\n", k, r.out[k])
	}
	return s
}

func helmRender(t testing.TB, c *chart.Chart, vals map[string]any) rendering {
	t.Helper()
	return newRendering(helmengine.Render(c, topValues(t, c, vals)))
}

func ourRender(t testing.TB, e *Engine, c *chart.Chart, vals map[string]any) rendering {
	t.Helper()
	return newRendering(e.Render(c, topValues(t, c, vals)))
}

// newRendering is an engine's result as a rendering.
func newRendering(out map[string]string, err error) rendering {
	if err != nil {
		return rendering{err: err.Error()}
	}
	return rendering{out: out}
}

// sameAsHelm renders c with vals with Helm's engine and twice with e (the
// second time from the parsed set the first kept) and fails t unless all
// three agree. It returns Helm's rendering, for tests to check that a
// case exercised what it meant to.
func sameAsHelm(t testing.TB, e *Engine, c *chart.Chart, vals map[string]any) rendering {
	t.Helper()
	want := helmRender(t, c, vals)
	for i := range 2 {
		got := ourRender(t, e, c, vals)
		if got.err != want.err || (want.err == "" && !reflect.DeepEqual(got.out, want.out)) {
			t.Fatalf("rendering %d differs from Helm's engine:\n got: %s\nwant: %s", i+1, got, want)
		}
	}
	return want
}
