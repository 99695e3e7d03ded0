package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestHydrateCommand: hydrate writes the committed state (an uncommitted
// change plays no part), reports what it wrote, writes nothing the second
// time, removes a removed target's files, and refuses what it cannot do
// with a usage error: no Git repository, an unknown revision or secrets
// mode, no --out.
func TestHydrateCommand(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	files := twoTargetFiles("data:\n  v: {{ .Values.v | quote }}\n")
	files["repotool.yaml"] = "git:\n  repoURL: https://example.com/gitops.git\n"
	testtool.WriteFiles(t, repo, files)
	testtool.GitCommit(t, repo, "first")
	os.WriteFile(filepath.Join(repo, "clusters", "dev", "a", "dev-values-a.yaml"), []byte("v: uncommitted\n"), 0o644)
	out := filepath.Join(t.TempDir(), "hydrated")
	var all strings.Builder
	step := func(name string, want int, args ...string) {
		t.Helper()
		got, code := runCLI(t, args...)
		got = strings.ReplaceAll(got, filepath.Dir(out), "TMP")
		all.WriteString("=== " + name + "\n" + got)
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, want, got)
		}
	}
	step("hydrate", cli.ExitOK, "hydrate", repo, "--out", out)
	data, err := os.ReadFile(filepath.Join(out, "dev", "a", "manifest.yaml"))
	if err != nil || !strings.Contains(string(data), `v: "one"`) {
		t.Errorf("dev/a/manifest.yaml is not the committed state: %v\n%s", err, data)
	}
	step("again", cli.ExitOK, "hydrate", repo, "--out", out)
	os.RemoveAll(filepath.Join(repo, "clusters", "prd"))
	testtool.GitCommit(t, repo, "prd gone")
	step("target removed", cli.ExitOK, "hydrate", repo, "--out", out)
	plain := filepath.Join(filepath.Dir(out), "plain")
	os.MkdirAll(plain, 0o755)
	// A change to dev's values: only dev/a is rendered; the rest is kept.
	testtool.WriteFiles(t, repo, map[string]string{"clusters/dev/a/dev-values-a.yaml": "v: three\n", "clusters/prd/a/prd-values-a.yaml": "v: two\n"})
	testtool.GitCommit(t, repo, "prd back")
	step("prd back", cli.ExitOK, "hydrate", repo, "--out", out)
	testtool.WriteFiles(t, repo, map[string]string{"clusters/dev/a/dev-values-a.yaml": "v: four\n"})
	testtool.GitCommit(t, repo, "dev changed")
	os.WriteFile(filepath.Join(out, "prd", "a", "manifest.yaml"), []byte("not rendered again\n"), 0o644)
	step("changed since the commit before", cli.ExitOK, "hydrate", repo, "--out", out, "--changed-since", "HEAD~1")
	if data, _ := os.ReadFile(filepath.Join(out, "prd", "a", "manifest.yaml")); string(data) != "not rendered again\n" {
		t.Errorf("--changed-since rendered a target the change does not affect:\n%s", data)
	}
	step("changed since, with --check", cli.ExitError, "hydrate", repo, "--out", out, "--changed-since", "HEAD~1", "--check")
	step("all again", cli.ExitOK, "hydrate", repo, "--out", out)
	step("check, up to date", cli.ExitOK, "hydrate", repo, "--out", out, "--check")
	os.WriteFile(filepath.Join(out, "dev", "a", "manifest.yaml"), []byte("pushed: by hand\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("a later commit that changes no target\n"), 0o644)
	testtool.GitCommit(t, repo, "a later commit")
	step("check, edited by hand (of the drySha in hydrator.metadata, not HEAD)", cli.ExitFindings, "hydrate", repo, "--out", out, "--check")
	os.WriteFile(filepath.Join(out, "hydrator.metadata"), []byte("{not json\n"), 0o644)
	step("check, the recorded dry commit unreadable", cli.ExitError, "hydrate", repo, "--out", out, "--check")
	step("not a Git repository", cli.ExitError, "hydrate", plain, "--out", out)
	step("unknown revision", cli.ExitError, "hydrate", repo, "--out", out, "--dry", "no-such-branch")
	step("unknown secrets mode", cli.ExitError, "hydrate", repo, "--out", out, "--secrets", "plain")
	step("no --out", cli.ExitError, "hydrate", repo)
	golden.Check(t, filepath.Join("testdata", "golden", "hydrate.txt"), []byte(all.String()))
}

// TestHydrateBranches: --branch commits each cluster's manifests to its
// branch, says what it committed, and commits nothing the second time;
// --branch with --out is a usage error.
func TestHydrateBranches(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, twoTargetFiles(""))
	testtool.GitCommit(t, repo, "dry")
	out, code := runCLI(t, "hydrate", repo, "--branch", "hydrated/")
	if code != cli.ExitOK || strings.Count(out, "(committed: 5 files written, 0 removed)") != 2 || !strings.Contains(out, "hydrated/dev ") || !strings.Contains(out, "git push origin 'refs/heads/hydrated/*' 'refs/notes/hydrator.metadata'") {
		t.Errorf("first: exit %d\n%s", code, out)
	}
	out, code = runCLI(t, "hydrate", repo, "--branch", "hydrated/")
	if code != cli.ExitOK || strings.Count(out, "(unchanged)") != 2 {
		t.Errorf("second: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "hydrate", repo, "--branch", "h/", "--out", t.TempDir()); code != cli.ExitError {
		t.Errorf("--branch with --out: exit %d\n%s", code, out)
	}
}

// twoTargetFiles are a chart deployed to two clusters, its ConfigMap ending
// with data.
func twoTargetFiles(data string) map[string]string {
	return map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n" + data,
		"clusters/dev/a/dev-values-a.yaml": "v: one\n",
		"clusters/prd/a/prd-values-a.yaml": "v: two\n",
	}
}
