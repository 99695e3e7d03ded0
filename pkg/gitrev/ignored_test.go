package gitrev_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
)

// TestIgnored: Ignored follows the work tree's .gitignore files from the
// root down, .git/info/exclude, negations and ignored folders, relative
// to a repotool repository in a sub-folder, and never reports a tracked
// file.
func TestIgnored(t *testing.T) {
	testtool.Require(t, "git")
	testtool.IsolateSOPS(t) // a HOME of its own: no user's core.excludesFile
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	work := t.TempDir()
	testtool.WriteFiles(t, work, map[string]string{
		"gitops/clusters/dev/a/dev-values-a.yaml": "a: 1\n",
		"gitops/tracked.local.yaml":               "a: 1\n",
	})
	testtool.GitCommit(t, work, "first")
	// Ignored after the commit: the committed file stays tracked.
	testtool.WriteFiles(t, work, map[string]string{
		".gitignore":                           "*.local.yaml\n!keep.local.yaml\nscratch/\n",
		"gitops/clusters/dev/.gitignore":       "override-*.yaml\n",
		".git/info/exclude":                    "mine-*.yaml\n",
		"gitops/clusters/dev/a/prd.local.yaml": "a: 2\n",
	})
	g, err := gitrev.Open(filepath.Join(work, "gitops"))
	if err != nil {
		t.Fatal(err)
	}
	ignored, err := g.Ignored()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"clusters/dev/a/dev-values-a.yaml":     false,
		"clusters/dev/a/dev.local.yaml":        true,  // the root's .gitignore
		"clusters/dev/a/keep.local.yaml":       false, // negated
		"tracked.local.yaml":                   false, // tracked
		"clusters/dev/a/override-x.yaml":       true,  // clusters/dev/.gitignore
		"clusters/prd/a/override-x.yaml":       false, // not below it
		"clusters/dev/a/mine-x.yaml":           true,  // .git/info/exclude
		"clusters/dev/scratch/dev-values.yaml": true,  // in an ignored folder
	} {
		if got := ignored(p); got != want {
			t.Errorf("Ignored(%s) = %v, want %v", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(work, ".git", "info", "exclude")); err != nil {
		t.Fatal(err)
	}
}
