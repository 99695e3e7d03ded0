package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestLintScope: --cluster (and --namespace) lint a team's own targets:
// only their findings, with only their targets named.
func TestLintScope(t *testing.T) {
	all, _ := runCLI(t, "lint", strayCase, "-o", "json")
	old, code := runCLI(t, "lint", strayCase, "--cluster", "old", "-o", "json")
	if code != cli.ExitFindings || strings.Contains(old, `"new/app"`) || !strings.Contains(old, `"old/app"`) || !strings.Contains(old, `"targets": 1,`) {
		t.Errorf("--cluster old: exit %d\n%s", code, old)
	}
	if strings.Contains(old, "bootstrap/legacy-2019.yaml") {
		t.Error("a finding about a file outside the cluster's folders was kept")
	}
	if len(old) >= len(all) {
		t.Error("the scoped run is not smaller")
	}
	if out, code := runCLI(t, "lint", strayCase, "--cluster", "nope"); code != cli.ExitError || !strings.Contains(out, "no target nope") {
		t.Errorf("unknown cluster: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "lint", strayCase, "--namespace", "app"); code != cli.ExitError || !strings.Contains(out, "needs its cluster") {
		t.Errorf("namespace without cluster: exit %d\n%s", code, out)
	}
}

// TestShards: lint --shard i/n over every i finds what one run finds, each
// finding once, a cluster's targets always in one shard, and findings about
// no target in the first shard only; values-unused, which looks across
// clusters, is left to --merge (TestLintShardMerge). render --shard splits
// the targets too.
func TestShards(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		"repotool.yaml":           "clusters:\n  a: {kubeVersion: v1.34.0}\n  b: {kubeVersion: v1.34.0}\n  c: {kubeVersion: v1.34.0}\n",
		"bootstrap/old.yaml":      "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n",
		"namespaces/.placeholder": "",
	}
	for i := range 8 {
		ns := fmt.Sprintf("ns%d", i)
		files["namespaces/"+ns+"/Chart.yaml"] = "apiVersion: v2\nname: " + ns + "\nversion: 1.0.0\n"
		files["namespaces/"+ns+"/templates/ing.yaml"] = "apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata:\n  name: " + ns + "\n"
		files["clusters/a/"+ns+"/a-values.yaml"] = "x: 1\n"
		files["clusters/b/"+ns+"/b-values.yaml"] = "x: 1\n"
		files["clusters/c/"+ns+"/c-values.yaml"] = "x: 1\n"
	}
	testtool.WriteFiles(t, repo, files)
	type finding struct {
		Rule    string   `json:"rule"`
		File    string   `json:"file"`
		Targets []string `json:"targets"`
		Print   string   `json:"fingerprint"`
	}
	lintJSON := func(args ...string) []finding {
		t.Helper()
		out, code := runCLI(t, append([]string{"lint", repo, "-o", "json"}, args...)...)
		if code != cli.ExitFindings {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		var res struct{ Findings []finding }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Findings
	}
	all := slices.DeleteFunc(lintJSON(), func(f finding) bool { return f.Rule == "values-unused" })
	key := func(f finding) string { return f.Print + " " + strings.Join(f.Targets, ",") }
	seen := map[string]int{}
	busy := 0
	for i := 1; i <= 3; i++ {
		part := lintJSON("--shard", fmt.Sprintf("%d/3", i))
		if len(part) > 1 {
			busy++
		}
		for _, f := range part {
			seen[key(f)]++
			if len(f.Targets) == 0 && i != 1 {
				t.Errorf("shard %d/3 reports %s, which belongs to no target", i, f.File)
			}
		}
	}
	if len(seen) != len(all) || busy < 2 {
		t.Errorf("the shards found %d findings, one run %d; %d shards had work", len(seen), len(all), busy)
	}
	for _, f := range all {
		if seen[key(f)] != 1 {
			t.Errorf("%s %v found by %d shards", f.File, f.Targets, seen[key(f)])
		}
	}
	rendered := 0
	for i := 1; i <= 3; i++ {
		out, code := runCLI(t, "render", repo, "--all", "--no-decrypt", "--shard", fmt.Sprintf("%d/3", i))
		if code != cli.ExitOK {
			t.Fatalf("render shard %d: exit %d\n%s", i, code, out)
		}
		rendered += strings.Count(out, "kind: Ingress")
	}
	if rendered != 24 {
		t.Errorf("the render shards rendered %d objects, want 24", rendered)
	}
	if out, code := runCLI(t, "lint", repo, "--shard", "4/3"); code != cli.ExitError || !strings.Contains(out, "1 <= i <= n") {
		t.Errorf("--shard 4/3: exit %d\n%s", code, out)
	}
}

// TestLintChangedSince lints only what a change affects: one cluster's
// values file is one target, a namespace's common values file that
// namespace in every cluster, repotool.yaml every target. With --staged,
// Git's index is linted: a broken file that is not staged plays no part.
func TestLintChangedSince(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	lint := func(args ...string) (targets int, out string, code int) {
		t.Helper()
		out, code = runCLI(t, append([]string{"lint", dir, "-o", "json"}, args...)...)
		var res struct {
			Summary struct{ Targets, Rendered int }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if code == 0 && res.Summary.Rendered != res.Summary.Targets {
			t.Errorf("%v: %d of %d targets rendered\n%s", args, res.Summary.Rendered, res.Summary.Targets, out)
		}
		return res.Summary.Targets, out, code
	}
	appendTo := func(file, text string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	all, _, _ := lint()
	if all != 11 {
		t.Fatalf("the fixture has %d targets, want 11", all)
	}
	if n, out, code := lint("--changed-since", "HEAD"); n != 0 || code != 0 {
		t.Errorf("no change: %d targets, exit %d\n%s", n, code, out)
	}
	appendTo("clusters/prod-cluster/namespace-a/prod-values-a.yaml", "# a comment\n")
	if n, out, code := lint("--changed-since", "HEAD"); n != 1 || code != 0 {
		t.Errorf("one cluster values file: %d targets, exit %d\n%s", n, code, out)
	}
	if n, out, _ := lint("--staged"); n != 0 {
		t.Errorf("--staged, nothing staged: %d targets\n%s", n, out)
	}
	git("add", "clusters/prod-cluster/namespace-a/prod-values-a.yaml")
	if n, out, _ := lint("--staged"); n != 1 {
		t.Errorf("--staged, one values file staged: %d targets\n%s", n, out)
	}
	appendTo("namespaces/namespace-a/common-values-a.yaml", "# a comment\n")
	if n, out, _ := lint("--changed-since", "HEAD"); n != 2 {
		t.Errorf("a common values file: %d targets, want namespace-a in both clusters\n%s", n, out)
	}
	// A broken values file, not staged: --staged does not see it, the
	// working tree does.
	if err := os.WriteFile(filepath.Join(dir, "clusters/dev-cluster/namespace-b/dev-values-wip.yaml"), []byte("replicaCount: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, out, code := lint("--staged"); n != 1 || code != 0 {
		t.Errorf("--staged with an untracked broken file: %d targets, exit %d\n%s", n, code, out)
	}
	if _, out, code := lint("--changed-since", "HEAD"); code != cli.ExitFindings || !strings.Contains(out, "dev-values-wip.yaml") {
		t.Errorf("--changed-since HEAD with a broken file in the working tree: exit %d\n%s", code, out)
	}
	if err := os.Remove(filepath.Join(dir, "clusters/dev-cluster/namespace-b/dev-values-wip.yaml")); err != nil {
		t.Fatal(err)
	}
	appendTo("repotool.yaml", "# a comment\n")
	if n, out, _ := lint("--changed-since", "HEAD"); n != 11 {
		t.Errorf("repotool.yaml: %d targets, want all\n%s", n, out)
	}
	// A base whose repotool.yaml is invalid, being fixed: everything is
	// linted, the fix is not refused.
	good, err := os.ReadFile(filepath.Join(dir, "repotool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	appendTo("repotool.yaml", "defaults: [\n")
	git("add", "-A")
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "broken")
	if err := os.WriteFile(filepath.Join(dir, "repotool.yaml"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, out, code := lint("--changed-since", "HEAD"); n != 11 || code != 0 {
		t.Errorf("fixing an invalid repotool.yaml: %d targets, exit %d\n%s", n, code, out)
	}
	if _, code := runCLI(t, "lint", dir, "--changed-since", "no-such-revision"); code != cli.ExitError {
		t.Errorf("an unknown revision: exit %d", code)
	}
}

// TestLintStagedFirstCommit: before the first commit there is no HEAD;
// --staged lints everything staged, and diff says there is no HEAD.
func TestLintStagedFirstCommit(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if out, code := runCLI(t, "lint", dir, "--staged"); code != 0 || !strings.Contains(out, "0 errors, 2 warnings, 0 infos in 11 targets") {
		t.Errorf("lint --staged before the first commit: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--staged"); code != cli.ExitError || !strings.Contains(out, `revision "HEAD"`) {
		t.Errorf("diff --staged before the first commit: exit %d\n%s", code, out)
	}
}
