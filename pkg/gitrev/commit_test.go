package gitrev_test

import (
	"errors"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
)

// TestCommitFiles: the files become a branch's whole tree in one commit,
// as the git CLI reads it (log, tree, notes, fsck); the same files again
// make no commit but a note on the head; other files make a commit on top;
// a file whose content cannot be had, or a path given twice, fails the
// commit and leaves the branch where it was; a checked-out branch is
// refused.
func TestCommitFiles(t *testing.T) {
	gitBin := testtool.Require(t, "git")
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"README.md": "dry\n"})
	testtool.GitCommit(t, dir, "dry")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(gitBin, append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	repo, err := gitrev.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info := func(msg, note string) gitrev.CommitInfo {
		return gitrev.CommitInfo{Message: msg, Name: "hydrator", Email: "hydrator@example.com", When: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
			NotesRef: "refs/notes/hydrator.metadata", Note: []byte(note)}
	}
	commit := func(files map[string][]byte, msg, note string) (string, bool, error) {
		return repo.CommitFiles("hydrated/prod", slices.Sorted(maps.Keys(files)), func(p string) ([]byte, error) { return files[p], nil }, info(msg, note))
	}
	files := map[string][]byte{
		"hydrator.metadata": []byte("{}\n"), ".gitattributes": []byte("x"),
		"shop/manifest.yaml": []byte("kind: A\n"), "shop/README.md": []byte("r\n"), "shop-b/manifest.yaml": []byte("kind: B\n"), "a/b/c/d.yaml": []byte("deep\n"),
	}
	first, committed, err := commit(files, "first\n", `{"drySha":"1"}`)
	if err != nil || !committed {
		t.Fatalf("first commit: %v %v", committed, err)
	}
	if got := run("ls-tree", "-r", "--name-only", "hydrated/prod"); got != ".gitattributes\na/b/c/d.yaml\nhydrator.metadata\nshop-b/manifest.yaml\nshop/README.md\nshop/manifest.yaml\n" {
		t.Errorf("tree:\n%s", got)
	}
	if got := run("show", "hydrated/prod:shop/manifest.yaml"); got != "kind: A\n" {
		t.Errorf("content: %q", got)
	}
	if got := run("notes", "--ref=hydrator.metadata", "show", first); got != `{"drySha":"1"}` {
		t.Errorf("note: %q", got)
	}
	again, committed, err := commit(files, "again\n", `{"drySha":"2"}`)
	if err != nil || committed || again != first {
		t.Errorf("the same files again: %s %v %v", again, committed, err)
	}
	if got := run("notes", "--ref=hydrator.metadata", "show", first); got != `{"drySha":"2"}` {
		t.Errorf("note after a run that changed nothing: %q", got)
	}
	files["shop/manifest.yaml"] = []byte("kind: A2\n")
	delete(files, "shop-b/manifest.yaml")
	second, committed, err := commit(files, "second\n", `{"drySha":"3"}`)
	if err != nil || !committed {
		t.Fatalf("second commit: %v %v", committed, err)
	}
	if got := run("log", "--format=%s %an", "hydrated/prod"); got != "second hydrator\nfirst hydrator\n" {
		t.Errorf("log:\n%s", got)
	}
	if got := run("diff", "--name-status", first, second); got != "D\tshop-b/manifest.yaml\nM\tshop/manifest.yaml\n" {
		t.Errorf("diff:\n%s", got)
	}
	unreadable := errors.New("unreadable")
	if _, _, err := repo.CommitFiles("hydrated/prod", []string{"shop/manifest.yaml"}, func(string) ([]byte, error) { return nil, unreadable }, info("x\n", "")); !errors.Is(err, unreadable) {
		t.Errorf("content that cannot be had: %v", err)
	}
	if _, _, err := repo.CommitFiles("hydrated/prod", []string{"a", "a"}, func(string) ([]byte, error) { return nil, nil }, info("x\n", "")); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a path given twice: %v", err)
	}
	if got := strings.TrimSpace(run("rev-parse", "hydrated/prod")); got != second {
		t.Errorf("the branch moved on a failed commit: %s, not %s", got, second)
	}
	if out := run("fsck", "--strict"); strings.Contains(out, "error") {
		t.Errorf("fsck: %s", out)
	}
	if head := strings.TrimSpace(run("rev-parse", "--abbrev-ref", "HEAD")); head == "hydrated/prod" {
		t.Fatal("HEAD moved")
	}
	run("checkout", "-q", "hydrated/prod")
	if _, _, err := commit(files, "x\n", ""); err == nil || !strings.Contains(err.Error(), "is checked out") {
		t.Errorf("a checked-out branch: %v", err)
	}
}
