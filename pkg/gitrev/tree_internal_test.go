package gitrev

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestTreesHeld: a revision read through more folders than a generation
// holds reads every file right, and holds two generations at most.
func TestTreesHeld(t *testing.T) {
	defer func(n int) { heldTrees = n }(heldTrees)
	heldTrees = 3
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range 4 {
		for j := range 3 {
			p := fmt.Sprintf("c%d/n%d/values.yaml", i, j)
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("n: %d\n", i*3+j)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(p); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("folders", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := r.Revision("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, paths...); err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		if data, err := fs.ReadFile(fsys, p); err != nil || string(data) != fmt.Sprintf("n: %d\n", i) {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	tree := fsys.(*treeFS)
	if len(tree.trees) > heldTrees || len(tree.older) > heldTrees {
		t.Errorf("held %d and %d folders' trees, want at most %d each", len(tree.trees), len(tree.older), heldTrees)
	}
}
