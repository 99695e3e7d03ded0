package gitrev

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestRacilyClean: a file whose modification time is not before the
// index's is read, however well its entry matches: it may have changed in
// the tick the index was written in.
func TestRacilyClean(t *testing.T) {
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("a.yaml"); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := r.readIndex()
	if err != nil {
		t.Fatal(err)
	}
	e, ok := cache.entry("a.yaml")
	info, err := os.Lstat(filepath.Join(dir, "a.yaml"))
	if !ok || err != nil {
		t.Fatalf("entry %v, %v", e, err)
	}
	for _, tc := range []struct {
		written time.Time
		want    bool
	}{
		{info.ModTime().Add(-time.Nanosecond), false},
		{info.ModTime(), false},
		{info.ModTime().Add(time.Nanosecond), true},
	} {
		cache.written = tc.written
		if got := cache.describes(e, info); got != tc.want {
			t.Errorf("index written %s after the file: describes = %v, want %v", tc.written.Sub(info.ModTime()), got, tc.want)
		}
	}
}

// TestStatCacheEntry: a path's entry is found in the sorted list, the
// first of a conflict's stages; a path not held is not.
func TestStatCacheEntry(t *testing.T) {
	// Listed out of order: the cache sorts them, a conflict's stages
	// kept in the order given.
	c := newTestCache([]testEntry{{"b", 5, true}, {"a/c", 3, false}, {"a", 1, true}, {"a/c", 4, false}, {"a-b", 2, true}})
	for p, want := range map[string]uint32{"a": 1, "a-b": 2, "a/c": 3, "b": 5, "": 0, "a/b": 0, "c": 0} {
		e, ok := c.entry(p)
		if ok != (want != 0) || e.size != want || ok && c.name(&e) != p {
			t.Errorf("entry(%q) = %+v, %v; want size %d", p, e, ok, want)
		}
	}
}

// testEntry is an index entry for newTestCache.
type testEntry struct {
	name   string
	size   uint32
	merged bool
}

// newTestCache is a stat cache of the entries, their names held as
// readIndex holds them.
func newTestCache(es []testEntry) *statCache {
	c := &statCache{}
	var names strings.Builder
	for _, e := range es {
		c.entries = append(c.entries, statEntry{off: uint32(names.Len()), n: uint32(len(e.name)), size: e.size, merged: e.merged})
		names.WriteString(e.name)
	}
	c.names = names.String()
	c.sort()
	return c
}

// TestReleaseIndex: Git's index is read once while held, let go by
// ReleaseIndex, and read again, alike, when asked after.
func TestReleaseIndex(t *testing.T) {
	testtool.Require(t, "git")
	work := t.TempDir()
	testtool.WriteFiles(t, work, map[string]string{"a.yaml": "a: 1\n", "b/c.yaml": "c: 1\n"})
	testtool.GitCommit(t, work, "first")
	r, err := Open(work)
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := r.index(); again != first {
		t.Fatal("the index was read again while held")
	}
	r.ReleaseIndex()
	if r.held.cache != nil || r.held.read {
		t.Fatal("ReleaseIndex kept the index")
	}
	after, err := r.index()
	if err != nil || after == first || len(after.entries) != 2 || after.names != first.names {
		t.Fatalf("read again after ReleaseIndex: %v, %d entries (want 2, a new read)", err, len(after.entries))
	}
	if _, ok := after.entry("b/c.yaml"); !ok {
		t.Fatal("b/c.yaml not in the index read again")
	}
}
