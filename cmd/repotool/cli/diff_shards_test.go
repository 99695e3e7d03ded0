package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestDiffShards: a change compared in two parts (diff --shard i/2
// --shard-report) and merged (diff --merge) prints what one run prints, in
// every format and in the markdown parts, with the same exit status; the
// merge refuses a missing part and flags it does not take.
func TestDiffShards(t *testing.T) {
	dir := committedMonorepo(t)
	for file, edit := range map[string][2]string{
		"clusters/prod-cluster/namespace-a/prod-values-a.yaml": {"LOG_LEVEL: info", "LOG_LEVEL: trace"},
		"namespaces/namespace-a/common-values-a.yaml":          {"containerPort: 8080", "containerPort: 8081"},
	} {
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), edit[0]) {
			t.Fatalf("%s: %v", file, err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), edit[0], edit[1], 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testtool.GitCommit(t, dir, "head")
	tmp := t.TempDir()
	reports := []string{filepath.Join(tmp, "2.json"), filepath.Join(tmp, "1.json")}
	for i, r := range reports {
		if out, code := runCLI(t, "diff", dir, "--base", "HEAD~1", "--head", "HEAD", "--shard", []string{"2/2", "1/2"}[i], "--shard-report", r); code != cli.ExitOK {
			t.Fatalf("shard %d: exit %d\n%s", 2-i, code, out)
		}
	}
	merge := strings.Join(reports, ",")
	for _, format := range []string{"text", "json", "markdown"} {
		wholeParts, mergedParts := filepath.Join(tmp, format+"-whole"), filepath.Join(tmp, format+"-merged")
		whole, code := runCLI(t, "diff", dir, "--base", "HEAD~1", "--head", "HEAD", "-o", format, "--exit-code", "--out-dir", wholeParts)
		merged, mcode := runCLI(t, "diff", "--merge", merge, "-o", format, "--exit-code", "--out-dir", mergedParts)
		if merged != whole || mcode != code || code != cli.ExitFindings {
			t.Errorf("-o %s: merged (exit %d) differs from one run (exit %d):\n%s\n---\n%s", format, mcode, code, merged, whole)
		}
		if a, b := readDir(t, wholeParts), readDir(t, mergedParts); a != b || a == "" {
			t.Errorf("-o %s: the merged markdown parts differ from one run's", format)
		}
	}
	if out, code := runCLI(t, "diff", "--merge", reports[0]); code != cli.ExitError || !strings.Contains(out, "1/2 is missing") {
		t.Errorf("a missing part: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "diff", "--merge", merge, "--base", "HEAD"); code != cli.ExitError || !strings.Contains(out, "takes no --base") {
		t.Errorf("--merge with --base: exit %d\n%s", code, out)
	}
}

// readDir is every file of dir, names and contents, in order.
func readDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + "\n" + string(data))
	}
	return b.String()
}

// committedMonorepo is a copy of the fixture committed as "base", with the
// test key in use.
func committedMonorepo(t *testing.T) string {
	t.Helper()
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	return dir
}
