package gitrev

import (
	"fmt"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestIgnoredReadsIndexOnlyWhenMatched: with few ignore patterns, Ignored
// matches them first and reads Git's index only for a path they match; with
// more than maxPatternsFirst, or a .gitignore larger than maxFirstSize (a
// .gitignore under review may hold any number), it asks the index first. Both give Git's answers: a tracked
// file is never ignored.
func TestIgnoredReadsIndexOnlyWhenMatched(t *testing.T) {
	testtool.Require(t, "git")
	testtool.IsolateSOPS(t) // a HOME of its own: no user's core.excludesFile
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var filler strings.Builder
	for i := range maxPatternsFirst {
		fmt.Fprintf(&filler, "never-%d-*.bin\n", i)
	}
	for _, tc := range []struct {
		name, gitignore string
		firstReads      bool // the index is read for the first path, which no pattern matches
	}{
		{"few patterns", "*.local.yaml\n", false},
		{"many patterns", filler.String() + "*.local.yaml\n", true},
		{"a large file", strings.Repeat("# a comment, not a pattern\n", maxFirstSize/20) + "*.local.yaml\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			testtool.WriteFiles(t, work, map[string]string{"clusters/dev/a/dev-values-a.yaml": "a: 1\n", "tracked.local.yaml": "a: 1\n"})
			testtool.GitCommit(t, work, "first")
			testtool.WriteFiles(t, work, map[string]string{".gitignore": tc.gitignore})
			r, err := Open(work)
			if err != nil {
				t.Fatal(err)
			}
			reads, index := 0, r.index
			r.index = func() (*statCache, error) { reads++; return index() }
			ignored, err := r.Ignored()
			if err != nil {
				t.Fatal(err)
			}
			if ignored("clusters/dev/a/dev-values-a.yaml") || (reads > 0) != tc.firstReads {
				t.Fatalf("a path no pattern matches: ignored, or the index asked %d times", reads)
			}
			if !ignored("clusters/dev/a/dev.local.yaml") || reads == 0 {
				t.Fatalf("an untracked path a pattern matches: not ignored, or the index not asked (%d)", reads)
			}
			if ignored("tracked.local.yaml") {
				t.Fatal("a tracked file a pattern matches is ignored")
			}
		})
	}
}
