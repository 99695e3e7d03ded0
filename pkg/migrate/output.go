package migrate

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/repotool/repotool/internal/fsutil"
)

// Write writes the plan's files under root, each atomically (a file is
// either all old or all new, never half written).
func (r *Result) Write(root string) error {
	for _, f := range r.Files {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(path.Dir(f.Path))), 0o755); err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(root, filepath.FromSlash(f.Path)), f.New); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}

// WriteReport writes what the plan converts, switches, refuses and leaves
// to do by hand, one item a line, and what it wrote (written) or would
// write.
func (r *Result) WriteReport(w io.Writer, written bool) error {
	var b strings.Builder
	section := func(title string, items []Item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(items))
		for _, it := range items {
			loc := it.File
			if it.Line > 0 {
				loc = fmt.Sprintf("%s:%d", it.File, it.Line)
			}
			if it.Name != "" {
				loc += " " + it.Name
			}
			fmt.Fprintf(&b, "  %s: %s\n", loc, it.Detail)
		}
	}
	section("converted", r.Converted)
	section("switched", r.Switched)
	section("refused", r.Refused)
	section("to do by hand", r.Todo)
	if len(r.Encrypted) > 0 {
		fmt.Fprintf(&b, "SOPS-encrypted files, not read: %s\n", strings.Join(r.Encrypted, ", "))
	}
	switch {
	case len(r.Files) == 0:
		b.WriteString("nothing to change\n")
	case written:
		fmt.Fprintf(&b, "wrote %d file(s)\n", len(r.Files))
	default:
		fmt.Fprintf(&b, "dry run: %d file(s) would change; --write writes them\n", len(r.Files))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lines splits text for a diff: none for an empty file.
func lines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return difflib.SplitLines(string(text))
}

// Diff is a unified diff of every file the plan writes, sorted by path.
func (r *Result) Diff() string {
	var b strings.Builder
	for _, f := range r.Files {
		from := "a/" + f.Path
		if f.Old == nil {
			from = "/dev/null"
		}
		d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: lines(f.Old), B: lines(f.New),
			FromFile: from, ToFile: "b/" + f.Path, Context: 3,
		})
		b.WriteString(d)
	}
	return b.String()
}
