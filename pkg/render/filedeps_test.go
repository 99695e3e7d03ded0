package render_test

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestFileDependencyCallersAgree feeds the three readers of file://
// dependencies the same tricky trees: layout's inputs (manifest-generate-
// paths, diff, --changed-since), the renderer's cycle check and its
// loader. Where the target renders, every chart folder the renderer read
// is one of its inputs, and every dependency folder among the inputs was
// read (a folder inside another input is covered by it): a dependency
// the inputs miss is a change Argo CD never sees. Where
// it cannot render, it fails with a DependencyError naming the same
// dependency, and the inputs hold no path outside the repository.
func TestFileDependencyCallersAgree(t *testing.T) {
	chart := func(name string, deps ...string) string {
		s := "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
		if len(deps) > 0 {
			s += "dependencies:\n"
			for _, d := range deps {
				name, repo, _ := strings.Cut(d, "=")
				s += "  - name: " + name + "\n    version: 1.0.0\n    repository: " + repo + "\n"
			}
		}
		return s
	}
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		links map[string]string // link -> target, relative to the link's folder
		// wantErr is in the rendering's error; "" when it renders.
		wantErr string
		// wantDeps are the dependency folders among the inputs.
		wantDeps []string
	}{
		{
			name: "chain through the root",
			files: map[string]string{
				"namespaces/app/Chart.yaml":    chart("app", "lib=file://../../charts/lib"),
				"charts/lib/Chart.yaml":        chart("lib", "base=file://../base"),
				"charts/lib/templates/a.yaml":  cm("lib"),
				"charts/base/Chart.yaml":       chart("base"),
				"charts/base/templates/a.yaml": cm("base"),
			},
			wantDeps: []string{"charts/base", "charts/lib"},
		},
		{
			name: "inside the chart, with a trailing slash",
			files: map[string]string{
				"namespaces/app/Chart.yaml":           chart("app", "sub=file://./sub/"),
				"namespaces/app/sub/Chart.yaml":       chart("sub"),
				"namespaces/app/sub/templates/a.yaml": cm("sub"),
			},
			wantDeps: nil, // inside namespaces/app, an input already
		},
		{
			name: "through a link inside the repository",
			files: map[string]string{
				"namespaces/app/Chart.yaml":   chart("app", "lib=file://../../shared"),
				"charts/lib/Chart.yaml":       chart("lib"),
				"charts/lib/templates/a.yaml": cm("lib"),
			},
			links:    map[string]string{"shared": "charts/lib"},
			wantDeps: []string{"charts/lib", "shared"},
		},
		{
			name: "above the repository",
			files: map[string]string{
				"namespaces/app/Chart.yaml": chart("app", "lib=file://../../../lib"),
			},
			wantErr: `dependency "lib" (file://../../../lib)`,
		},
		{
			name: "absolute",
			files: map[string]string{
				"namespaces/app/Chart.yaml": chart("app", "lib=file:///etc/lib"),
			},
			wantErr: `dependency "lib" (file:///etc/lib)`,
		},
		{
			name: "cycle",
			files: map[string]string{
				"namespaces/app/Chart.yaml": chart("app", "a=file://../../charts/a"),
				"charts/a/Chart.yaml":       chart("a", "b=file://../b"),
				"charts/b/Chart.yaml":       chart("b", "a=file://../a"),
			},
			wantErr:  "the file:// dependencies form a cycle: charts/a -> charts/b -> charts/a",
			wantDeps: []string{"charts/a", "charts/b"},
		},
		{
			name: "missing",
			files: map[string]string{
				"namespaces/app/Chart.yaml": chart("app", "lib=file://../../charts/gone"),
			},
			wantErr:  "charts/gone/Chart.yaml does not exist",
			wantDeps: []string{"charts/gone"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files["namespaces/app/templates/cm.yaml"] = cm("app")
			tc.files["clusters/c1/app/values-a.yaml"] = "a: 1\n"
			testtool.WriteFiles(t, dir, tc.files)
			for link, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			rec := &recordingFS{fsys: os.DirFS(dir), seen: map[string]bool{}}
			repo, err := layout.Load(context.Background(), rec, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tg := &repo.Targets[0]
			var deps []string
			for _, in := range repo.Inputs(tg) {
				if strings.HasPrefix(in, "/") || in == ".." || strings.HasPrefix(in, "../") {
					t.Errorf("input %s is outside the repository", in)
				}
				if in != "namespaces/app" && !strings.HasPrefix(in, "clusters/") && (strings.HasPrefix(in, "charts/") || strings.HasPrefix(in, "namespaces/app/") || in == "shared") {
					deps = append(deps, in)
				}
			}
			if !slices.Equal(deps, tc.wantDeps) {
				t.Errorf("dependency inputs %v, want %v", deps, tc.wantDeps)
			}
			_, err = render.New(repo, render.DefaultOptions()).Render(context.Background(), tg)
			var de *render.DependencyError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (!errors.As(err, &de) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want a DependencyError containing %q", err, tc.wantErr)
			case tc.wantErr != "":
				return
			}
			// Every chart folder read is an input; every dependency input was read.
			inputs := repo.Inputs(tg)
			for p := range rec.seen {
				if path.Base(p) != "Chart.yaml" {
					continue
				}
				if d := path.Dir(p); !slices.ContainsFunc(inputs, func(in string) bool { return d == in || strings.HasPrefix(d, in+"/") }) {
					t.Errorf("the renderer read the chart %s, which is not among the inputs %v", d, inputs)
				}
			}
			for _, d := range deps {
				if !rec.seen[d+"/Chart.yaml"] && !rec.seen[d] {
					t.Errorf("the input %s was never read", d)
				}
			}
		})
	}
}
