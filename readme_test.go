package repotool_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// readmeSample is the output the README shows after its marker
// "<!-- readme: NAME -->": the fenced block's lines after its "$ command"
// line.
func readmeSample(t *testing.T, readme, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "<!-- readme: "+name+" -->\n```\n")
	if !ok {
		t.Fatalf("README.md has no sample %q", name)
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatalf("README.md's sample %q is not closed", name)
	}
	_, out, _ := strings.Cut(block, "\n") // the "$ command" line
	return out
}

// TestReadmeSamples: the README's sample outputs are what the commands
// print: lint on the fixture, run here, and the diff of the change the
// CLI test makes (its golden file, which that test keeps current).
func TestReadmeSamples(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	cmd := exec.Command(testtool.Repotool(t), "lint", "testdata/monorepo")
	cmd.Env = testtool.CleanEnv(t.TempDir(), "SOPS_AGE_KEY_FILE="+testtool.TestKey(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lint: %v\n%s", err, out)
	}
	if got := readmeSample(t, readme, "lint"); got != string(out) {
		t.Errorf("README.md's lint sample is not what lint prints:\n%s\nlint prints:\n%s", got, out)
	}
	diff, err := os.ReadFile(filepath.Join("cmd", "repotool", "cli", "testdata", "golden", "diff-worktree.text"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeSample(t, readme, "diff"); got != string(diff) {
		t.Errorf("README.md's diff sample is not what diff prints:\n%s\ndiff prints:\n%s", got, diff)
	}
	if _, err := os.Stat(filepath.Join("docs", "images", "pr-comment.svg")); err != nil || !strings.Contains(readme, "(docs/images/pr-comment.svg)") {
		t.Errorf("the README's picture of the pull-request comment: %v", err)
	}
}
