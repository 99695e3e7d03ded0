package repotool_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// notOurs are the marks a file taken from another project carries: its
// licence header, or a note saying where it was taken or changed from.
// Each word is written with a character class so that this file, which
// is checked too, does not carry the marks it looks for.
var notOurs = regexp.MustCompile(`(?i)copy[r]ight|licensed[ ]under the|spdx-license-[i]dentifier|\bcopied[ ]from\b|\bmodified[ ](?:by|from)\b`)

// TestWrittenHere: every source file of the repository (Go, shell, the
// workflow and Action) is ours: none carries another project's licence
// header or a note naming the project it came from. Third-party material
// comes from pinned Go modules (internal/corpus) or ../shared, never
// committed. Test data is prose about upstream projects and is not read.
func TestWrittenHere(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".sh", ".yml", ".mod":
		default:
			if filepath.Base(filepath.Dir(p)) != ".ci" {
				return nil
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if notOurs.MatchString(line) {
				t.Errorf("%s:%d: %s", p, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked", checked)
	}
}
