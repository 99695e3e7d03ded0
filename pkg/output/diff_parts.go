package output

import (
	"fmt"
	"os"
	"regexp"

	"github.com/repotool/repotool/internal/outdir"
)

// partName matches the files WriteParts writes: diff-001.md, diff-002.md...
var partName = regexp.MustCompile(`^diff-[0-9]{3,}\.md$`)

// WriteParts writes the parts of a markdown diff (MarkdownParts) to dir as
// diff-001.md, diff-002.md and so on, each atomically, and removes the
// parts an earlier, longer diff left there, so that the folder holds this
// diff's parts and nothing else of its kind (the Action posts one comment
// per file). Other files in dir are left alone.
func WriteParts(dir string, parts []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := make([]outdir.File, len(parts))
	written := map[string]bool{}
	for i, p := range parts {
		files[i] = outdir.File{Path: fmt.Sprintf("diff-%03d.md", i+1), Data: []byte(p)}
		written[files[i].Path] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var stale []string
	for _, e := range entries {
		if partName.MatchString(e.Name()) && !written[e.Name()] {
			stale = append(stale, e.Name())
		}
	}
	_, err = outdir.Apply(dir, files, stale, false)
	return err
}
