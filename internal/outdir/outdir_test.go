package outdir_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/outdir"
)

func write(t *testing.T, dir, p, data string) {
	t.Helper()
	file := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestApply: a changed or new file is written, an unchanged one is left
// alone (its modification time too), a stale one is removed with the
// folders that leaves empty but never the folder itself nor another
// file, a stale path already gone is no error; a dry run reports the same
// and changes nothing.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a/same.yaml", "same\n")
	write(t, dir, "a/changed.yaml", "old\n")
	write(t, dir, "gone/x/stale.yaml", "stale\n")
	write(t, dir, "keep/mine.yaml", "not the writer's\n")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "a", "same.yaml"), old, old)
	files := []outdir.File{{Path: "a/same.yaml", Data: []byte("same\n")}, {Path: "a/changed.yaml", Data: []byte("new\n")}, {Path: "b/new.yaml", Data: []byte("new\n")}}
	stale := []string{"gone/x/stale.yaml", "never/was.yaml"}

	dry, err := outdir.Apply(dir, files, stale, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "new.yaml")); err == nil {
		t.Error("a dry run wrote a file")
	}
	rep, err := outdir.Apply(dir, files, stale, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*outdir.Report{"dry run": dry, "run": rep} {
		if !slices.Equal(r.Written, []string{"a/changed.yaml", "b/new.yaml"}) || !slices.Equal(r.Unchanged, []string{"a/same.yaml"}) {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if !slices.Equal(rep.Removed, []string{"gone/x/stale.yaml"}) {
		t.Errorf("removed %v", rep.Removed)
	}
	if st, _ := os.Stat(filepath.Join(dir, "a", "same.yaml")); !st.ModTime().Equal(old) {
		t.Error("an unchanged file was rewritten")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a", "changed.yaml")); string(data) != "new\n" {
		t.Errorf("a/changed.yaml holds %q", data)
	}
	for p, want := range map[string]bool{"gone": false, "keep/mine.yaml": true, ".": true} {
		if _, err := os.Stat(filepath.Join(dir, p)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", p, err == nil, want)
		}
	}
	if removed, err := outdir.Remove(dir, "a/same.yaml"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	outdir.Remove(dir, "a/changed.yaml")
	if _, err := os.Stat(dir); err != nil {
		t.Error("Remove removed the folder itself")
	}
}
