package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// walkAll walks root and returns "rel" for every entry and "rel: error"
// for every entry that could not be followed.
func walkAll(t *testing.T, fsys fs.FS, root string) ([]string, error) {
	t.Helper()
	var out []string
	err := Walk(fsys, root, func(rel, real string, info fs.FileInfo, err error) error {
		switch {
		case err != nil:
			kind := "other"
			for _, k := range []struct {
				name string
				err  error
			}{{"loop", ErrSymlinkLoop}, {"escape", ErrSymlinkEscape}, {"missing", fs.ErrNotExist}} {
				if errors.Is(err, k.err) {
					kind = k.name
					break
				}
			}
			out = append(out, rel+": "+kind)
		case info.IsDir():
			out = append(out, rel+"/")
		default:
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

func TestWalk(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{"plain", fstest.MapFS{"c/a.yaml": {}, "c/t/b.yaml": {}}, []string{"a.yaml", "t/", "t/b.yaml"}},
		{"link to a parent", fstest.MapFS{"c/a.yaml": {}, "c/t/loop": {Data: []byte(".."), Mode: fs.ModeSymlink}}, []string{"a.yaml", "t/", "t/loop: loop"}},
		{"link to itself", fstest.MapFS{"c/self": {Data: []byte("."), Mode: fs.ModeSymlink}}, []string{"self: loop"}},
		{"two folders linked to each other", fstest.MapFS{
			"c/a/to-b": {Data: []byte("../b"), Mode: fs.ModeSymlink},
			"c/b/to-a": {Data: []byte("../a"), Mode: fs.ModeSymlink},
		}, []string{"a/", "a/to-b/", "a/to-b/to-a: loop", "b/", "b/to-a/", "b/to-a/to-b: loop"}},
		{"linked folder outside the root but inside the repository", fstest.MapFS{
			"c/lib":        {Data: []byte("../shared"), Mode: fs.ModeSymlink},
			"shared/x.tpl": {},
		}, []string{"lib/", "lib/x.tpl"}},
		{"dangling, escaping and chained loops", fstest.MapFS{
			"c/dangling": {Data: []byte("nowhere"), Mode: fs.ModeSymlink},
			"c/escape":   {Data: []byte("../../etc"), Mode: fs.ModeSymlink},
			"c/l1":       {Data: []byte("l2"), Mode: fs.ModeSymlink},
			"c/l2":       {Data: []byte("l1"), Mode: fs.ModeSymlink},
		}, []string{"dangling: missing", "escape: escape", "l1: loop", "l2: loop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := walkAll(t, tt.fsys, "c")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("walk =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestWalkBounded: folders that link to the same folder many times over
// (2^20 paths from 40 links) stop at the bound instead of running for ever.
func TestWalkBounded(t *testing.T) {
	fsys := fstest.MapFS{"c/d0/f.yaml": {}}
	for i := 1; i <= 20; i++ {
		for _, l := range []string{"x", "y"} {
			fsys[fmt.Sprintf("c/d%d/%s", i, l)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("../d%d", i-1)), Mode: fs.ModeSymlink}
		}
	}
	err := Walk(fsys, "c/d20", func(string, string, fs.FileInfo, error) error { return nil })
	if !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("err = %v, want ErrTooManyEntries", err)
	}
}

// TestWalkOSLinkToParent: the case that made helm's loader (and repotool's
// chart reader before Walk) run out of memory, on a real file system.
func TestWalkOSLinkToParent(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "chart", "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "chart", "Chart.yaml"), []byte("name: x\n"), 0o644)
	if err := os.Symlink("..", filepath.Join(dir, "chart", "templates", "loop")); err != nil {
		t.Fatal(err)
	}
	got, err := walkAll(t, os.DirFS(dir), "chart")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Chart.yaml", "templates/", "templates/loop: loop"}
	if !slices.Equal(got, want) {
		t.Errorf("walk = %v, want %v", got, want)
	}
}

// FuzzWalk builds link structures from the fuzzer's bytes and checks that
// Walk always ends, never reports an entry twice, and never leaves the
// file system.
func FuzzWalk(f *testing.F) {
	f.Add([]byte("a/b\x00..\x00c\x00a/b/x\x00."))
	f.Add([]byte("t/loop\x00..\x00t/f\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"root/Chart.yaml": {}}
		testtool.LinkTree(data, func(name, target string) {
			if target == "" {
				fsys["root/"+name] = &fstest.MapFile{}
			} else {
				fsys["root/"+name] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
			}
		})
		seen := map[string]bool{}
		n := 0
		err := Walk(fsys, "root", func(rel, real string, info fs.FileInfo, err error) error {
			if seen[rel] {
				t.Fatalf("%s reported twice", rel)
			}
			seen[rel] = true
			if n++; n > MaxWalkEntries {
				t.Fatal("walk went past its bound")
			}
			if strings.HasPrefix(real, "../") || strings.HasPrefix(real, "/") {
				t.Fatalf("%s resolved outside the file system: %s", rel, real)
			}
			return nil
		})
		_ = err // any error is fine; ending, and staying inside, is the point
	})
}
