package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestLintShardMerge: lint --shard i/n --shard-report in each CI job, then
// lint --merge in a last one, prints what one lint run prints, in every
// format, with its exit status; a missing shard is a usage error.
func TestLintShardMerge(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	var reports []string
	for i := 1; i <= 3; i++ {
		file := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if _, code := runCLI(t, "lint", monorepo, "--shard", fmt.Sprintf("%d/3", i), "--shard-report", file, "--offline"); code == cli.ExitError {
			t.Fatalf("shard %d/3: usage error", i)
		}
		reports = append(reports, file)
	}
	for _, format := range []string{"text", "json", "sarif"} {
		whole, wholeCode := runCLI(t, "lint", monorepo, "-o", format, "--offline")
		merged, mergedCode := runCLI(t, "lint", monorepo, "-o", format, "--merge", strings.Join(reports, ","))
		if merged != whole || mergedCode != wholeCode {
			t.Errorf("-o %s: merged (exit %d):\n%s\nwhole (exit %d):\n%s", format, mergedCode, merged, wholeCode, whole)
		}
	}
	// With the CRD inventory made once, the shards render only their own
	// targets, and the merge is the same.
	inventory := filepath.Join(dir, "crds.json")
	if out, code := runCLI(t, "lint", monorepo, "--crd-inventory-out", inventory, "--offline"); code != cli.ExitOK || !strings.Contains(out, "CRDs in") {
		t.Fatalf("--crd-inventory-out: exit %d\n%s", code, out)
	}
	for i := 1; i <= 3; i++ {
		runCLI(t, "lint", monorepo, "--shard", fmt.Sprintf("%d/3", i), "--crd-inventory", inventory, "--shard-report", reports[i-1], "--offline")
	}
	whole, wholeCode := runCLI(t, "lint", monorepo, "--offline")
	if merged, code := runCLI(t, "lint", monorepo, "--merge", strings.Join(reports, ",")); merged != whole || code != wholeCode {
		t.Errorf("with the CRD inventory: merged (exit %d):\n%s\nwhole (exit %d):\n%s", code, merged, wholeCode, whole)
	}
	if out, code := runCLI(t, "lint", monorepo, "--crd-inventory", inventory); code != cli.ExitError {
		t.Errorf("--crd-inventory without --shard: exit %d\n%s", code, out)
	}
	out, code := runCLI(t, "lint", monorepo, "--merge", strings.Join(reports[:2], ","))
	if code != cli.ExitError || !strings.Contains(out, "shard 3/3 is missing") {
		t.Errorf("two shards of three: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "lint", monorepo, "--shard-report", filepath.Join(dir, "x.json")); code != cli.ExitError {
		t.Errorf("--shard-report without --shard: exit %d\n%s", code, out)
	}
}
