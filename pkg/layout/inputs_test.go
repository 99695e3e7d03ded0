package layout_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
)

func TestInputs(t *testing.T) {
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
	}
	chart := func(deps ...string) *fstest.MapFile {
		s := "apiVersion: v2\nname: x\nversion: 1.0.0\n"
		if len(deps) > 0 {
			s += "dependencies:\n"
			for _, d := range deps {
				s += "  - name: d\n    version: 1.0.0\n    repository: " + d + "\n"
			}
		}
		return &fstest.MapFile{Data: []byte(s)}
	}
	fsys := fstest.MapFS{
		"repotool.yaml": {Data: []byte("git: {repoURL: https://example.com/r.git}\n")},
		// app depends on lib, which depends on base, which depends on lib
		// again (a cycle: render reports it), and on a chart that escapes.
		"namespaces/app/Chart.yaml":        chart("file://../../libs/lib"),
		"namespaces/app/templates/cm.yaml": {Data: []byte("kind: ConfigMap\n")},
		"namespaces/app/templates/shared":  link("../../../shared/templates"),
		"namespaces/app/templates/inside":  link("cm.yaml"),
		"namespaces/app/files/one.txt":     link("../../../shared/one.txt"),
		"libs/lib/Chart.yaml":              chart("file://../base", "https://charts.example.com"),
		"libs/base/Chart.yaml":             chart("file://../lib", "file://../../../outside"),
		"shared/templates/a.yaml":          {Data: []byte("kind: ConfigMap\n")},
		// A link inside a linked folder leads further out; a link in a
		// dependency dangles: creating its target changes the chart.
		"shared/templates/more":               link("../../more/templates"),
		"more/templates/b.yaml":               {Data: []byte("kind: ConfigMap\n")},
		"libs/lib/templates/later.yaml":       link("../../../later/later.yaml"),
		"shared/one.txt":                      {Data: []byte("one\n")},
		"shared/values/prod.yaml":             {Data: []byte("a: 1\n")},
		"clusters/c/app/prod-values-a.yaml":   link("../../../shared/values/prod.yaml"),
		"clusters/c/app/prod-values-b.yaml":   {Data: []byte("b: 1\n")},
		"namespaces/other/Chart.yaml":         chart(),
		"clusters/c/other/prod-values-a.yaml": {Data: []byte("c: 1\n")},
	}
	for _, only := range []*layout.TargetRef{nil, {Cluster: "c", Namespace: "app"}} {
		repo, err := layout.Load(context.Background(), fsys, layout.Options{Only: only})
		if err != nil {
			t.Fatal(err)
		}
		tg, ok := repo.Target("c", "app")
		if !ok {
			t.Fatal("no target c/app")
		}
		want := []string{
			".sops.yaml",
			"clusters/c/app",
			"later/later.yaml",
			"libs/base",
			"libs/lib",
			"more/templates",
			"namespaces/app",
			"repotool.sum",
			"repotool.yaml",
			"shared/one.txt",
			"shared/templates",
			"shared/values/prod.yaml",
		}
		if got := repo.Inputs(tg); !slices.Equal(got, want) {
			t.Errorf("only %v: Inputs =\n%q\nwant\n%q", only, got, want)
		}
		// Asked again (the cache), the same.
		if got := repo.Inputs(tg); !slices.Equal(got, want) {
			t.Errorf("only %v: Inputs asked again = %q", only, got)
		}
	}
}

func TestRepoFilesCustomConfig(t *testing.T) {
	fsys := fstest.MapFS{
		"ci/repotool.yaml":        {Data: []byte("git: {repoURL: https://example.com/r.git}\n")},
		"namespaces/a/Chart.yaml": {Data: []byte("apiVersion: v2\nname: a\nversion: 1.0.0\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{ConfigFile: "ci/repotool.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := repo.RepoFiles(), []string{".sops.yaml", "ci/repotool.yaml", "repotool.sum"}; !slices.Equal(got, want) {
		t.Errorf("RepoFiles = %q, want %q", got, want)
	}
}
