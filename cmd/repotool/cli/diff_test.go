package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestDiffCommand commits the fixture, changes a values file and a chart
// template in the working tree, and compares: against the working tree,
// and between two commits, in both formats; the same input gives the
// same bytes, and --exit-code says whether anything changed.
func TestDiffCommand(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	commit := func(msg string) { testtool.GitCommit(t, dir, msg) }
	commit("base")
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--exit-code"); code != 0 || !strings.Contains(out, "no target is affected") {
		t.Errorf("no change: exit %d\n%s", code, out)
	}
	replace := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s has no %q", file, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	replace("clusters/prod-cluster/namespace-a/prod-values-a.yaml", "LOG_LEVEL: info", "LOG_LEVEL: trace")
	for _, format := range []string{"text", "json", "markdown"} {
		out, code := runCLI(t, "diff", dir, "--base", "HEAD", "-o", format, "--exit-code")
		if code != cli.ExitFindings {
			t.Errorf("-o %s: exit %d, want %d\n%s", format, code, cli.ExitFindings, out)
		}
		again, _ := runCLI(t, "diff", dir, "--base", "HEAD", "-o", format, "--exit-code")
		if again != out {
			t.Errorf("-o %s: two runs differ", format)
		}
		golden.Check(t, filepath.Join("testdata", "golden", "diff-worktree."+format), []byte(out))
	}
	// Colour: never when standard output is not a terminal, unless asked.
	if out, _ := runCLI(t, "diff", dir, "--base", "HEAD"); strings.Contains(out, "\x1b[") {
		t.Error("colour on standard output that is not a terminal")
	}
	if out, _ := runCLI(t, "diff", dir, "--base", "HEAD", "--color", "always"); !strings.Contains(out, "\x1b[32m+  LOG_LEVEL: \"trace\"\x1b[0m") {
		t.Errorf("--color always: no green addition\n%s", out)
	}
	if _, code := runCLI(t, "diff", dir, "--base", "HEAD", "--color", "sometimes"); code != cli.ExitError {
		t.Errorf("--color sometimes: exit %d", code)
	}
	// --out-dir writes the markdown parts, whatever -o is, and removes
	// the parts of an earlier, longer diff, and nothing else.
	parts := filepath.Join(t.TempDir(), "parts")
	for _, f := range []string{"diff-001.md", "diff-002.md", "diff-017.md", "notes.md"} {
		if err := os.MkdirAll(parts, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(parts, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	md, _ := runCLI(t, "diff", dir, "--base", "HEAD", "-o", "markdown")
	if _, code := runCLI(t, "diff", dir, "--base", "HEAD", "-o", "json", "--out-dir", parts); code != 0 {
		t.Errorf("--out-dir: exit %d", code)
	}
	entries, err := os.ReadDir(parts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "diff-001.md notes.md" {
		t.Errorf("--out-dir holds %v", names)
	}
	if data, _ := os.ReadFile(filepath.Join(parts, "diff-001.md")); string(data) != md {
		t.Error("the part written differs from -o markdown")
	}
	// Nothing is staged yet; then the values file is.
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--staged", "--exit-code"); code != 0 {
		t.Errorf("--staged with nothing staged: exit %d\n%s", code, out)
	}
	g, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("clusters/prod-cluster/namespace-a/prod-values-a.yaml"); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--staged", "--exit-code"); code != cli.ExitFindings || !strings.Contains(out, `+  LOG_LEVEL: "trace"`) {
		t.Errorf("--staged: exit %d\n%s", code, out)
	}
	if _, code := runCLI(t, "diff", dir, "--base", "HEAD", "--staged", "--head", "HEAD"); code != cli.ExitError {
		t.Errorf("--staged with --head: exit %d", code)
	}
	commit("head")
	out, code := runCLI(t, "diff", dir, "--base", "HEAD~1", "--head", "HEAD", "-o", "json")
	if code != 0 {
		t.Errorf("two commits, without --exit-code: exit %d\n%s", code, out)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "diff-commits.json"), []byte(out))
	if _, code := runCLI(t, "diff", dir); code != cli.ExitError {
		t.Errorf("no --base: exit %d", code)
	}
}
