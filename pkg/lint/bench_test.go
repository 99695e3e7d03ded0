package lint_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/synth"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// BenchmarkLint compares rendering a synthetic 200-target repository (10
// clusters x (18 application + 2 platform namespaces)) with
// linting it (rendering plus every rule), so the cost of the rules shows.
func BenchmarkLint(b *testing.B) {
	useTestKey(b)
	dir := filepath.Join(b.TempDir(), "repo")
	if _, err := synth.Generate(dir, synth.Options{Source: fixture, Clusters: 10, Namespaces: 18}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	load := func(b *testing.B) *layout.Repo {
		repo, err := layout.LoadDir(ctx, dir, layout.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return repo
	}
	b.Run("render-only", func(b *testing.B) {
		for b.Loop() {
			repo := load(b)
			for _, r := range render.New(repo, render.DefaultOptions()).RenderAll(ctx, repo.Targets) {
				if r.Err != nil {
					b.Fatal(r.Err)
				}
			}
		}
	})
	b.Run("lint", func(b *testing.B) {
		for b.Loop() {
			res, err := lint.Lint(ctx, load(b), lint.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Findings) != 0 {
				b.Fatalf("synthetic repository has findings: %v", res.Findings[0])
			}
		}
	})
	// The cross-object rules' share: every rule over the same renderings,
	// with and without them.
	crossObject := []string{"duplicate-object", "project-permission", "secret-conflict", "secret-reference", "secret-store-reference"}
	b.Run("rules-without-cross-object", func(b *testing.B) {
		repo := load(b)
		repo.Config.Lint.Rules = map[string]config.RuleConfig{}
		for _, id := range crossObject {
			repo.Config.Lint.Rules[id] = config.RuleConfig{Severity: "off"}
		}
		results := render.New(repo, render.DefaultOptions()).RenderAll(ctx, repo.Targets)
		b.ResetTimer()
		for b.Loop() {
			lint.Check(repo, results, lint.DefaultOptions())
		}
	})
	b.Run("rules-only", func(b *testing.B) {
		repo := load(b)
		results := render.New(repo, render.DefaultOptions()).RenderAll(ctx, repo.Targets)
		b.ResetTimer()
		for b.Loop() {
			lint.Check(repo, results, lint.DefaultOptions())
		}
	})
}
