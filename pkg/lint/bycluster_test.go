package lint_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

// sameByCluster lints repo in one pass and a cluster at a time, requires
// the same report, and returns it.
func sameByCluster(t *testing.T, repo *layout.Repo, opts lint.Options) *lint.Result {
	t.Helper()
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
		t.Errorf("a cluster at a time differs from one pass, targets %v (-one pass +by cluster):\n%s", opts.Targets, cmp.Diff(whole.Report, parts.Report))
	}
	return whole
}

// TestByClusterExact: a run checked a cluster at a time (more targets than
// Options.HeldTargets) reports exactly what one pass reports, over every
// target and over the targets a change affects, on the fixture, every
// rule case with more than one cluster, and the generated repository with
// problems planted across clusters.
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
			whole := sameByCluster(t, repo, opts)
			if len(whole.Findings) == 0 {
				t.Error("the repository has no findings: nothing was compared")
			}
			if dir == planted {
				// Among them the schema finding about a custom resource
				// of one cluster whose CRD another cluster renders, found
				// by cluster in warmSchemas' validation.
				checkPlanted(t, whole)
			}
			// The targets a change affects (lint --changed-since): every
			// other one, across the clusters.
			opts.Targets = []string{}
			for i, tg := range repo.Targets {
				if i%2 == 0 {
					opts.Targets = append(opts.Targets, tg.Name())
				}
			}
			sameByCluster(t, repo, opts)
		})
	}
	if clusters < 3 {
		t.Errorf("only %d repositories with more than one cluster: the test compares too little", clusters)
	}
}
