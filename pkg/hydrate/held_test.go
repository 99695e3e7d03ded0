package hydrate_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/render"
)

// TestFilesHeldOnDisk: a hydration keeps its files' documents in a
// temporary file in TMPDIR that no one can open by name (removed as soon
// as it is made, on a system that allows it), reads them back whole, and
// lets them go at Close, leaving nothing behind; a TMPDIR that cannot be
// written fails the hydration, saying so.
func TestFilesHeldOnDisk(t *testing.T) {
	dir := twoTargets(t) // before TMPDIR is set: the repository is not in it
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	res, repo := hydrateDir(t, dir, hydrate.Options{})
	if left, _ := os.ReadDir(tmp); runtime.GOOS != "windows" && len(left) != 0 {
		t.Errorf("the hydration's file can be opened by name in TMPDIR: %v", left)
	}
	if runtime.GOOS == "linux" && !openRemoved(t, tmp) {
		t.Error("no removed file of TMPDIR is open: the files' documents are not kept there")
	}
	files := filesOf(t, res)
	if len(files) != 8 || res.Len() != 8 {
		t.Fatalf("%d files (Len %d), want 8", len(files), res.Len())
	}
	for _, f := range files {
		if len(f.Data) == 0 {
			t.Errorf("%s: empty", f.Path)
		}
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR after Close: %v", left)
	}
	for _, err := range res.Files() {
		if err == nil {
			t.Error("a closed hydration gave a file back")
		}
		break
	}
	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	if _, err := hydrate.Hydrate(context.Background(), render.New(repo, render.DefaultOptions()), repo, hydrate.Options{DrySHA: drySHA}); err == nil ||
		!strings.Contains(err.Error(), "set TMPDIR to a folder that can be written") {
		t.Errorf("TMPDIR missing: %v, want the error and its fix", err)
	}
}

// openRemoved reports whether the process holds open a file of dir that
// has been removed (Linux: /proc/self/fd).
func openRemoved(t *testing.T, dir string) bool {
	t.Helper()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil &&
			strings.HasPrefix(target, dir+string(filepath.Separator)) && strings.HasSuffix(target, " (deleted)") {
			return true
		}
	}
	return false
}
