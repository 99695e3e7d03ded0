package render_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/synth"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

func benchKey(b *testing.B) { testtool.UseTestKey(b) }

// BenchmarkRenderTarget renders dev-cluster/namespace-a of the fixture:
// "cold" with a new Renderer each time (what one CLI run or Argo CD plugin
// call does after loading the layout), "warm" reusing one (charts parsed).
func BenchmarkRenderTarget(b *testing.B) {
	benchKey(b)
	repo := loadRepo(b, fixture)
	tg, _ := repo.Target("dev-cluster", "namespace-a")
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := render.New(repo, render.DefaultOptions()).Render(ctx, tg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		r := render.New(repo, render.DefaultOptions())
		for b.Loop() {
			if _, err := r.Render(ctx, tg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRenderAll loads the layout and renders every target of a
// synthetic 10 clusters x 20 namespaces repository (18 application and 2
// platform namespaces: 200 targets), as `repotool render --all` does.
func BenchmarkRenderAll(b *testing.B) {
	benchKey(b)
	dir := filepath.Join(b.TempDir(), "repo")
	if _, err := synth.Generate(dir, synth.Options{Source: fixture, Clusters: 10, Namespaces: 18}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		repo, err := layout.LoadDir(ctx, dir, layout.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, res := range render.New(repo, render.DefaultOptions()).RenderAll(ctx, repo.Targets) {
			if res.Err != nil {
				b.Fatal(res.Err)
			}
		}
	}
}
