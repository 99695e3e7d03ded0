package hydrate_test

import (
	"io/fs"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/hydrate"
)

// TestCommitBranches: each cluster's files become its branch's tree
// (<namespace>/... and the root's files), with the dry commit in the
// message and in Argo CD's note; hydrating the same commit again commits
// nothing but notes the head; a change commits only the branches it
// touches.
func TestCommitBranches(t *testing.T) {
	gitBin := testtool.Require(t, "git")
	repoDir := twoTargets(t)
	testtool.GitCommit(t, repoDir, "dry one")
	git, err := gitrev.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string) []hydrate.BranchCommit {
		t.Helper()
		sha, err := git.Commit("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		res, _ := hydrateDir(t, repoDir, hydrate.Options{DrySHA: sha})
		out, err := res.Commit(git, hydrate.BranchOptions{Prefix: "hydrated/", DrySHA: sha, Subject: msg, Name: "ci", Email: "ci@example.com", When: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := commit("dry one")
	if len(first) != 2 || first[0].Branch != "hydrated/dev" || first[1].Branch != "hydrated/prd" || !first[0].Committed || !first[1].Committed {
		t.Fatalf("first: %+v", first)
	}
	tree, err := git.BranchTree("hydrated/dev")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if want := []string{".gitattributes", "a/README.md", "a/hydrator.metadata", "a/manifest.yaml", "hydrator.metadata"}; !slices.Equal(files, want) {
		t.Errorf("hydrated/dev holds %v, want %v", files, want)
	}
	again := commit("dry one")
	if again[0].Committed || again[1].Committed || again[0].SHA != first[0].SHA {
		t.Errorf("the same commit again: %+v", again)
	}
	testtool.WriteFiles(t, repoDir, map[string]string{"clusters/dev/a/dev-values-a.yaml": "v: changed\n", "namespaces/a/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: {{ .Values.v | quote }}\n"})
	testtool.GitCommit(t, repoDir, "dry two")
	third := commit("dry two")
	if !third[0].Committed || !third[1].Committed {
		t.Errorf("a chart change commits both branches: %+v", third)
	}
	log, err := exec.Command(gitBin, "-C", repoDir, "log", "--format=%s", "hydrated/dev").CombinedOutput()
	if err != nil || len(slices.DeleteFunc([]byte(log), func(b byte) bool { return b != '\n' })) != 2 {
		t.Errorf("hydrated/dev log: %v\n%s", err, log)
	}
	dry, _ := git.Commit("HEAD")
	note, err := exec.Command(gitBin, "-C", repoDir, "notes", "--ref=hydrator.metadata", "show", third[0].SHA).CombinedOutput()
	if err != nil || string(note) != `{"drySha":"`+dry+`"}` {
		t.Errorf("note: %v %q", err, note)
	}
}

// TestCommitBranchesKept: a hydration of the targets a change affects
// (Options.Targets) commits the other targets' files as their branch
// holds them, read back when committed: the branch of a cluster the change
// does not touch keeps its tree, and gets no commit.
func TestCommitBranchesKept(t *testing.T) {
	repoDir := twoTargets(t)
	testtool.WriteFiles(t, repoDir, map[string]string{"namespaces/a/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: {{ .Values.v | quote }}\n"})
	testtool.GitCommit(t, repoDir, "dry one")
	git, err := gitrev.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(opts hydrate.Options) []hydrate.BranchCommit {
		t.Helper()
		sha, err := git.Commit("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		opts.DrySHA = sha
		res, _ := hydrateDir(t, repoDir, opts)
		out, err := res.Commit(git, hydrate.BranchOptions{Prefix: "hydrated/", DrySHA: sha, Subject: "dry", Name: "ci", Email: "ci@example.com", When: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := commit(hydrate.Options{})
	testtool.WriteFiles(t, repoDir, map[string]string{"clusters/dev/a/dev-values-a.yaml": "v: changed\n"})
	testtool.GitCommit(t, repoDir, "dry two")
	second := commit(hydrate.Options{Targets: []string{"dev/a"}})
	if len(second) != 2 || !second[0].Committed || second[1].Committed || second[1].SHA != first[1].SHA {
		t.Errorf("a change to dev alone: %+v, after %+v", second, first)
	}
}
