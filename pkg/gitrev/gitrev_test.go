package gitrev_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/layout"
)

// gitRepo is a real Git repository in a temporary folder.
type gitRepo struct {
	t   *testing.T
	dir string
	g   *git.Repository
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &gitRepo{t: t, dir: dir, g: g}
}

// open opens the repository with gitrev.
func (r *gitRepo) open() *gitrev.Repo {
	r.t.Helper()
	repo, err := gitrev.Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

// revision is repo at rev, which must exist.
func (r *gitRepo) revision(repo *gitrev.Repo, rev string) fs.FS {
	r.t.Helper()
	fsys, err := repo.Revision(rev)
	if err != nil {
		r.t.Fatal(err)
	}
	return fsys
}

// commit stages everything (additions, changes and removals) and commits.
func (r *gitRepo) commit(msg string) string {
	r.t.Helper()
	wt, err := r.g.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		r.t.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

func TestRevisions(t *testing.T) {
	r := newGitRepo(t)
	// The repotool repository lives in a sub-folder of the Git repository.
	root := filepath.Join(r.dir, "deploy")
	testtool.WriteFiles(t, root, map[string]string{
		"namespaces/shop/Chart.yaml":          "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
		"namespaces/shop/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop}\ndata: {a: \"{{ .Values.a }}\"}\n",
		"namespaces/web/Chart.yaml":           "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"clusters/prod/shop/prod-values.yaml": "a: 1\n",
		"clusters/prod/web/prod-values.yaml":  "a: 1\n",
		"clusters/dev/shop/dev-values.yaml":   "a: 1\n",
	})
	testtool.WriteFiles(t, r.dir, map[string]string{"README.md": "outside the repotool repository\n"})
	if err := os.Symlink("../../prod/shop/prod-values.yaml", filepath.Join(root, "clusters/dev/shop/dev-values-shared.yaml")); err != nil {
		t.Fatal(err)
	}
	base := r.commit("base")

	// A change, a rename, a deleted cluster namespace, a binary file.
	testtool.WriteFiles(t, root, map[string]string{
		"clusters/prod/shop/prod-values.yaml": "a: 2\n",
		"namespaces/shop/files/logo.png":      "\x89PNG\r\n\x1a\n\x00\x00binary",
	})
	if err := os.Rename(filepath.Join(root, "namespaces/shop/templates/cm.yaml"), filepath.Join(root, "namespaces/shop/templates/configmap.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "clusters/prod/web")); err != nil {
		t.Fatal(err)
	}
	r.commit("head")

	repo, err := gitrev.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if repo.Sub() != "deploy" {
		t.Errorf("Sub = %q", repo.Sub())
	}
	if h, err := repo.Commit("HEAD~1"); err != nil || h != base {
		t.Errorf("HEAD~1 = %s, %v; want %s", h, err, base)
	}
	changed, err := repo.Changed("HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"clusters/prod/shop/prod-values.yaml",
		"clusters/prod/web/prod-values.yaml",
		"namespaces/shop/files/logo.png",
		"namespaces/shop/templates/cm.yaml",
		"namespaces/shop/templates/configmap.yaml",
	}
	if !slices.Equal(changed, want) {
		t.Errorf("Changed = %q\nwant %q", changed, want)
	}

	for _, tt := range []struct {
		rev     string
		targets []string
		value   string
	}{
		{"HEAD~1", []string{"dev/shop", "prod/shop", "prod/web"}, "a: 1\n"},
		{"HEAD", []string{"dev/shop", "prod/shop"}, "a: 2\n"},
	} {
		fsys := r.revision(repo, tt.rev)
		l, err := layout.Load(context.Background(), fsys, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, t := range l.Targets {
			names = append(names, t.Name())
		}
		if !slices.Equal(names, tt.targets) {
			t.Errorf("%s: targets %v, want %v", tt.rev, names, tt.targets)
		}
		// The link is a link in the revision, and reads as its target.
		link := "clusters/dev/shop/dev-values-shared.yaml"
		if target, err := fs.ReadLink(fsys, link); err != nil || target != "../../prod/shop/prod-values.yaml" {
			t.Errorf("%s: ReadLink = %q, %v", tt.rev, target, err)
		}
		if data, err := fs.ReadFile(fsys, link); err != nil || string(data) != tt.value {
			t.Errorf("%s: the link reads %q, %v; want %q", tt.rev, data, err, tt.value)
		}
		if _, err := fs.Stat(fsys, "README.md"); err == nil {
			t.Errorf("%s: a file outside the repotool folder is visible", tt.rev)
		}
	}
}

// TestTreeFS checks the revision file system with the standard library's
// own conformance test.
func TestTreeFS(t *testing.T) {
	r := newGitRepo(t)
	testtool.WriteFiles(t, r.dir, map[string]string{
		"a.yaml":           "a: 1\n",
		"dir/b.yaml":       "b: 2\n",
		"dir/sub/c.bin":    "\x00\x01\x02",
		"dir/sub/deep/d.x": "d",
	})
	r.commit("files")
	repo := r.open()
	fsys := r.revision(repo, "HEAD")
	if err := fstest.TestFS(fsys, "a.yaml", "dir/b.yaml", "dir/sub/c.bin", "dir/sub/deep/d.x"); err != nil {
		t.Error(err)
	}
	// Render and lint read from several goroutines (go test -race).
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, p := range []string{"a.yaml", "dir/b.yaml", "dir/sub/deep/d.x"} {
				if _, err := fs.ReadFile(fsys, p); err != nil {
					t.Error(err)
				}
				if _, err := fs.Lstat(fsys, p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if _, err := repo.Revision("no-such-branch"); err == nil {
		t.Error("an unknown revision was accepted")
	}
}

func TestLinkLoop(t *testing.T) {
	r := newGitRepo(t)
	if err := os.Symlink("b", filepath.Join(r.dir, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(r.dir, "b")); err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, r.dir, map[string]string{"c": "c"})
	r.commit("loop")
	repo := r.open()
	fsys := r.revision(repo, "HEAD")
	if _, err := fs.ReadFile(fsys, "a"); err == nil {
		t.Error("links that loop were followed")
	}
	if _, err := fs.Stat(fsys, "a"); err == nil {
		t.Error("Stat followed links that loop")
	}
}

// TestStat: Stat follows links as Open does and describes what they lead
// to, as os.Stat does on the checkout (and, like Open, does not follow a
// link in the middle of a path: callers resolve those with
// fsutil.Resolve).
func TestStat(t *testing.T) {
	r := newGitRepo(t)
	testtool.WriteFiles(t, r.dir, map[string]string{"a.yaml": "a: 12345\n", "dir/b.yaml": "b: 1\n"})
	for link, target := range map[string]string{"link.yaml": "a.yaml", "dirlink": "dir", "gone.yaml": "nothing.yaml", "out.yaml": "../outside.yaml"} {
		if err := os.Symlink(target, filepath.Join(r.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	r.commit("base")
	fsys := r.revision(r.open(), "HEAD")
	for _, name := range []string{".", "a.yaml", "link.yaml", "dir", "dirlink", "dirlink/b.yaml", "gone.yaml", "out.yaml", "missing"} {
		got, gerr := fs.Stat(fsys, name)
		f, oerr := fsys.Open(name)
		if oerr == nil {
			f.Close()
		}
		if (gerr == nil) != (oerr == nil) {
			t.Errorf("%s: Stat error %v, Open error %v", name, gerr, oerr)
		}
		if strings.Contains(name, "/") {
			continue // a link in the middle: see above
		}
		want, werr := os.Stat(filepath.Join(r.dir, name))
		if (gerr == nil) != (werr == nil) {
			t.Errorf("%s: Stat error %v, os.Stat error %v", name, gerr, werr)
			continue
		}
		if gerr == nil && (got.IsDir() != want.IsDir() || !got.IsDir() && got.Size() != want.Size()) {
			t.Errorf("%s: dir %v size %d, os.Stat: dir %v size %d", name, got.IsDir(), got.Size(), want.IsDir(), want.Size())
		}
	}
}

// TestIndex: the index has staged changes, not the working tree's others.
func TestIndex(t *testing.T) {
	r := newGitRepo(t)
	testtool.WriteFiles(t, r.dir, map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
	if err := os.Symlink("a.yaml", filepath.Join(r.dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	r.commit("base")
	testtool.WriteFiles(t, r.dir, map[string]string{"a.yaml": "a: 2\n", "b.yaml": "b: 2\n"})
	wt, err := r.g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("a.yaml"); err != nil { // staged; b.yaml is not
		t.Fatal(err)
	}
	repo := r.open()
	idx, err := repo.Index()
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"a.yaml": "a: 2\n", "b.yaml": "b: 1\n", "link.yaml": "a: 2\n"} {
		if data, err := fs.ReadFile(idx, file); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", file, data, err, want)
		}
	}
	head := r.revision(repo, "HEAD")
	changed, err := gitrev.Diff(head, idx)
	if err != nil || !slices.Equal(changed, []string{"a.yaml"}) {
		t.Errorf("Diff(HEAD, index) = %v, %v", changed, err)
	}
}
