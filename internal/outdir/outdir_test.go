package outdir_test

import (
	"errors"
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

// TestLinksRefused: a link below the folder, to a folder outside it or a
// file, is neither written through, read through nor removed through,
// and a plan with one on the way fails before anything is written.
func TestLinksRefused(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "victim.yaml", "outside\n")
	if err := os.Symlink(outside, filepath.Join(dir, "cluster")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "real/x.yaml", "x\n")
	if err := os.Symlink(filepath.Join(outside, "victim.yaml"), filepath.Join(dir, "real", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"cluster/victim.yaml", "cluster/new/manifest.yaml", "real/link.yaml"} {
		if _, err := outdir.Write(dir, p, []byte("written\n")); !errors.Is(err, outdir.ErrLink) {
			t.Errorf("Write %s: %v", p, err)
		}
		if _, err := outdir.Remove(dir, p); !errors.Is(err, outdir.ErrLink) {
			t.Errorf("Remove %s: %v", p, err)
		}
		if _, err := outdir.Apply(dir, []outdir.File{{Path: p, Data: []byte("written\n")}}, nil, false); !errors.Is(err, outdir.ErrLink) {
			t.Errorf("Apply %s: %v", p, err)
		}
	}
	rep := &outdir.Report{Written: []string{"a/first.yaml", "cluster/victim.yaml"}}
	if err := outdir.Commit(dir, rep, func(string) ([]byte, error) { return []byte("written\n"), nil }); !errors.Is(err, outdir.ErrLink) {
		t.Errorf("Commit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "first.yaml")); err == nil {
		t.Error("Commit wrote a file before refusing the link")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "victim.yaml")); string(data) != "outside\n" {
		t.Errorf("the file outside was changed: %q", data)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files were written outside: %v", entries)
	}
}
