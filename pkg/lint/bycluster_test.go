package lint_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/lint"
)

// TestByClusterExact: a run checked a cluster at a time (more targets than
// Options.HeldTargets) reports exactly what one pass over every target
// reports, on the fixture, every rule case with more than one cluster, and
// the generated repository with problems planted across clusters.
func TestByClusterExact(t *testing.T) {
	if testing.Short() {
		t.Skip("lints every repository twice")
	}
	useTestKey(t)
	cases, err := filepath.Glob(filepath.Join(casesDir, "*", "repo"))
	if err != nil {
		t.Fatal(err)
	}
	planted := plantedRepo(t)
	clusters := 0
	for _, dir := range append([]string{fixture, planted}, cases...) {
		repo, opts := loadCase(t, dir)
		seen := map[string]bool{}
		for _, tg := range repo.Targets {
			seen[tg.Cluster] = true
		}
		if len(seen) < 2 {
			continue // one cluster: checked in one pass
		}
		clusters++
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		if dir == planted {
			name = "planted"
		}
		t.Run(name, func(t *testing.T) {
			opts.HeldTargets = -1
			whole, err := lint.Lint(context.Background(), repo, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.HeldTargets = 1
			parts, err := lint.Lint(context.Background(), repo, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(whole.Report, parts.Report) {
				t.Errorf("a cluster at a time differs from one pass (-one pass +by cluster):\n%s", cmp.Diff(whole.Report, parts.Report))
			}
			if len(whole.Findings) == 0 {
				t.Error("the repository has no findings: nothing was compared")
			}
		})
	}
	if clusters < 3 {
		t.Errorf("only %d repositories with more than one cluster: the test compares too little", clusters)
	}
}
