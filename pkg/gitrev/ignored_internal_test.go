package gitrev

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

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

// TestIgnorerForgetsFoldersWithoutPatterns: the folders found without
// ignore patterns (a repository has one per target) are remembered up to
// maxNone and then forgotten together, those with patterns always; the
// answers stay Git's.
func TestIgnorerForgetsFoldersWithoutPatterns(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"keep/.gitignore": "*.local.yaml\n"}
	for i := range maxNone + 10 {
		files[fmt.Sprintf("t/%04d/values.yaml", i)] = "a: 1\n"
	}
	testtool.WriteFiles(t, root, files)
	ig := &ignorer{root: root, dirs: map[string][]gitignore.Pattern{}, none: map[string]struct{}{}}
	for round := range 2 {
		for i := range maxNone + 10 {
			if ig.ignored(fmt.Sprintf("t/%04d/values.yaml", i)) {
				t.Fatalf("round %d: t/%04d/values.yaml ignored, no pattern matches it", round, i)
			}
			if len(ig.none) > maxNone {
				t.Fatalf("round %d: %d folders without patterns remembered, more than %d", round, len(ig.none), maxNone)
			}
			if !ig.ignored("keep/x.local.yaml") || ig.ignored("keep/x.yaml") {
				t.Fatalf("round %d: keep/.gitignore's pattern not applied after %d folders", round, i)
			}
		}
	}
	if _, ok := ig.dirs["keep"]; !ok || len(ig.dirs) != 1 {
		t.Fatalf("folders held with their patterns: %v, want keep alone", ig.dirs)
	}
}
