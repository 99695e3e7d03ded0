package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestResolve(t *testing.T) {
	fsys := fstest.MapFS{
		"a/file.yaml":  {Data: []byte("x")},
		"a/link.yaml":  {Data: []byte("file.yaml"), Mode: fs.ModeSymlink},
		"b":            {Data: []byte("a"), Mode: fs.ModeSymlink},
		"out":          {Data: []byte("../elsewhere"), Mode: fs.ModeSymlink},
		"abs":          {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink},
		"loop1":        {Data: []byte("loop2"), Mode: fs.ModeSymlink},
		"loop2":        {Data: []byte("loop1"), Mode: fs.ModeSymlink},
		"a/deep/x.txt": {Data: []byte("y")},
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"a/file.yaml", "a/file.yaml", nil},
		{"a/link.yaml", "a/file.yaml", nil},
		{"b/link.yaml", "a/file.yaml", nil},
		{"b/deep/../file.yaml", "a/file.yaml", nil},
		{"out", "", ErrSymlinkEscape},
		{"abs", "", ErrSymlinkEscape},
		{"../x", "", ErrSymlinkEscape},
		{"missing", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := Resolve(fsys, tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := Resolve(fsys, "loop1"); err == nil {
		t.Error("a symlink loop resolved")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new", "dir", "f.yaml")
	for _, content := range []string{"one", "two"} {
		if err := WriteFileAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestGetenv(t *testing.T) {
	env := []string{"A=1", "B=x=y", "A=2", "EMPTY=", "NOEQUALS"}
	for k, want := range map[string]string{"A": "2", "B": "x=y", "EMPTY": "", "MISSING": "", "NOEQUALS": ""} {
		if got := Getenv(env, k); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestFiles lists files in walk order, without the folders every scan
// leaves out, and only those keep accepts.
func TestFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"a.yaml":              {},
		"b/c.yml":             {},
		"b/d.txt":             {},
		".git/config":         {},
		"node_modules/x.yaml": {},
		"e/.hidden/f.yaml":    {},
	}
	all, err := Files(fsys, nil)
	if err != nil || strings.Join(all, " ") != "a.yaml b/c.yml b/d.txt" {
		t.Errorf("Files(nil) = %v, %v", all, err)
	}
	yaml, err := Files(fsys, func(p string, _ fs.DirEntry) bool { return strings.HasSuffix(p, "ml") })
	if err != nil || strings.Join(yaml, " ") != "a.yaml b/c.yml" {
		t.Errorf("Files(yaml) = %v, %v", yaml, err)
	}
}
