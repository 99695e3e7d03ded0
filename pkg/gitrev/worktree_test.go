package gitrev_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
)

// readCounter is a folder on disk that records which files are read.
type readCounter struct {
	fs.FS
	mu   sync.Mutex
	read []string
}

func (c *readCounter) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err == nil {
		if info, err := f.Stat(); err == nil && !info.IsDir() {
			c.mu.Lock()
			c.read = append(c.read, name)
			c.mu.Unlock()
		}
	}
	return f, err
}

func (c *readCounter) ReadLink(name string) (string, error)   { return fs.ReadLink(c.FS, name) }
func (c *readCounter) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(c.FS, name) }

// TestWorkTreeDiff: the working tree compared with a revision through the
// index's stat cache lists what Diff lists, and reads only the files the
// cache cannot vouch for.
func TestWorkTreeDiff(t *testing.T) {
	files := map[string]string{
		"sub/a.yaml":     "a: 1\n",
		"sub/b.yaml":     "b: 1\n",
		"sub/dir/c.yaml": "c: 1\n",
		"outside.yaml":   "o: 1\n", // outside the repotool repository
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, r *gitRepo)
		want   []string
		// read are the files read besides the changed ones.
		read []string
	}{
		{name: "unchanged", change: func(*testing.T, *gitRepo) {}},
		{
			name: "same size, written after the index",
			change: func(t *testing.T, r *gitRepo) {
				testtool.WriteFiles(t, r.dir, map[string]string{"sub/a.yaml": "a: 2\n"})
			},
			want: []string{"a.yaml"},
		},
		{
			name: "same size and modification time put back",
			change: func(t *testing.T, r *gitRepo) {
				p := filepath.Join(r.dir, "sub/a.yaml")
				info, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				testtool.WriteFiles(t, r.dir, map[string]string{"sub/a.yaml": "a: 2\n"})
				if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"a.yaml"},
		},
		{
			name: "staged, not committed",
			change: func(t *testing.T, r *gitRepo) {
				testtool.WriteFiles(t, r.dir, map[string]string{"sub/b.yaml": "b: 22\n"})
				backdate(t, r.dir, "sub/b.yaml")
				r.add("sub/b.yaml")
			},
			want: []string{"b.yaml"},
		},
		{
			name: "added, removed, and outside",
			change: func(t *testing.T, r *gitRepo) {
				testtool.WriteFiles(t, r.dir, map[string]string{"sub/dir/new.yaml": "n: 1\n", "outside.yaml": "o: 2\n"})
				if err := os.Remove(filepath.Join(r.dir, "sub/dir/c.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"dir/c.yaml", "dir/new.yaml"},
		},
		{
			name: "a link pointed elsewhere",
			change: func(t *testing.T, r *gitRepo) {
				p := filepath.Join(r.dir, "sub/link.yaml")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("b.yaml", p); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"link.yaml"},
		},
		{
			name: "a link replaced by a file holding its target",
			change: func(t *testing.T, r *gitRepo) {
				p := filepath.Join(r.dir, "sub/link.yaml")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				testtool.WriteFiles(t, r.dir, map[string]string{"sub/link.yaml": "a.yaml"})
				backdate(t, r.dir, "sub/link.yaml")
				r.add("sub/link.yaml")
			},
			want: []string{"link.yaml"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGitRepo(t)
			testtool.WriteFiles(t, r.dir, files)
			if err := os.Symlink("a.yaml", filepath.Join(r.dir, "sub/link.yaml")); err != nil {
				t.Fatal(err)
			}
			// Files older than the index, as after any checkout: the
			// cache vouches for them.
			for p := range files {
				backdate(t, r.dir, p)
			}
			r.commit("base")
			tc.change(t, r)
			repo, err := gitrev.Open(filepath.Join(r.dir, "sub"))
			if err != nil {
				t.Fatal(err)
			}
			base := r.revision(repo, "HEAD")
			work := &readCounter{FS: os.DirFS(filepath.Join(r.dir, "sub"))}
			got, err := repo.WorkTreeDiff(base, work)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("WorkTreeDiff = %q, want %q", got, tc.want)
			}
			plain, err := gitrev.Diff(base, os.DirFS(filepath.Join(r.dir, "sub")))
			if err != nil || !slices.Equal(plain, got) {
				t.Errorf("Diff = %q, %v; WorkTreeDiff %q", plain, err, got)
			}
			for _, p := range work.read {
				if !slices.Contains(tc.want, p) {
					t.Errorf("read %s, which the index vouches for", p)
				}
			}
		})
	}
}

// backdate sets a file's times an hour back, so that it is older than the
// index written next.
func backdate(t *testing.T, dir, p string) {
	t.Helper()
	then := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, p), then, then); err != nil {
		t.Fatal(err)
	}
}

// add stages one file.
func (r *gitRepo) add(p string) {
	r.t.Helper()
	wt, err := r.g.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := wt.Add(p); err != nil {
		r.t.Fatal(err)
	}
}
