package gitrev_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/gitrev"
)

// TestDiffPlain: Diff of two file systems lists, sorted, the paths only
// one has and those whose content differs, whatever order a walk of the
// folders visits them in ("a-b" sorts before "a/c", a walk visits a/c
// first), a file on one side where the other has a folder with every
// file below that folder, and leaves out hidden folders and
// node_modules.
func TestDiffPlain(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	a := fstest.MapFS{
		"a/c":            file("1"),
		"a-b":            file("2"),
		"a/d/e":          file("3"),
		"only-a":         file("4"),
		"z/same":         file("5"),
		".git/x":         file("6"),
		"m/changed":      file("7"),
		"m/n/only-a":     file("8"),
		"p/q":            file("9"),
		"p-r":            file("10"),
		"t":              file("11"),
		"node_modules/x": file("12"),
	}
	b := fstest.MapFS{
		"a/c":            file("1"),
		"a-b":            file("2 changed"),
		"a/d/e":          file("3"),
		"only-b":         file("4"),
		"z/same":         file("5"),
		".git/y":         file("6"),
		"m/changed":      file("7 changed"),
		"m/n-only-b":     file("8"),
		"p-r":            file("10"),
		"t/u":            file("11"),
		"t/v/w":          file("11"),
		"node_modules/y": file("12"),
	}
	want := []string{"a-b", "m/changed", "m/n-only-b", "m/n/only-a", "only-a", "only-b", "p/q", "t", "t/u", "t/v/w"}
	for _, sides := range [][2]fstest.MapFS{{a, b}, {b, a}} {
		got, err := gitrev.Diff(sides[0], sides[1])
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Diff = %q, %v; want %q", got, err, want)
		}
	}
	if got, err := gitrev.Diff(a, a); err != nil || len(got) != 0 {
		t.Errorf("Diff of a file system with itself = %q, %v", got, err)
	}
	if got, err := gitrev.Diff(fstest.MapFS{}, a); err != nil || len(got) != 10 {
		t.Errorf("Diff from nothing = %q, %v; want a's 10 files", got, err)
	}
}
