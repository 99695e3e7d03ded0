package output

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/repotool/repotool/internal/fsutil"
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
	written := map[string]bool{}
	for i, p := range parts {
		name := fmt.Sprintf("diff-%03d.md", i+1)
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, name), []byte(p)); err != nil {
			return err
		}
		written[name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if partName.MatchString(e.Name()) && !written[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
