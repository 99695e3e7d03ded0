package output_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repotool/repotool/pkg/output"
)

// TestWriteParts: the parts are written in order; the parts a longer diff
// left are removed; other files stay.
func TestWriteParts(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"diff-001.md", "diff-002.md", "diff-003.md", "notes.md", "diff-final.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := output.WriteParts(dir, []string{"one", "two"}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"diff-001.md", "diff-002.md", "diff-final.md", "notes.md"}; !slices.Equal(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "diff-002.md")); string(data) != "two" {
		t.Errorf("diff-002.md holds %q", data)
	}
}
