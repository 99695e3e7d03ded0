package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// sopsTwoTargets is a repository of two clusters whose chart renders a
// Secret, with a .sops.yaml rule for the hydrated manifests (the test
// key), committed.
func sopsTwoTargets(t *testing.T) string {
	t.Helper()
	testtool.Require(t, "git")
	testtool.UseTestKey(t)
	files := twoTargetFiles("")
	files["namespaces/a/templates/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\nstringData:\n  password: {{ .Values.v | quote }}\n"
	files[".sops.yaml"] = "creation_rules:\n  - path_regex: manifest\\.yaml$\n    age: " + testRecipient + "\n"
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, files)
	testtool.GitCommit(t, repo, "dry")
	return repo
}

// TestHydrateCheckRecordedMode: the documented flow, hydrate --secrets
// sops then --check with no --secrets, passes: the mode is read from the
// output's hydrator.metadata. A missing, an edited and a stale file are
// each reported as what they are.
func TestHydrateCheckRecordedMode(t *testing.T) {
	repo := sopsTwoTargets(t)
	out := filepath.Join(t.TempDir(), "hydrated")
	if got, code := runCLI(t, "hydrate", repo, "--out", out, "--secrets", "sops"); code != cli.ExitOK {
		t.Fatalf("hydrate --secrets sops: exit %d\n%s", code, got)
	}
	if got, code := runCLI(t, "hydrate", repo, "--out", out, "--check"); code != cli.ExitOK || !strings.Contains(got, "is the hydration of") {
		t.Fatalf("--check of what --secrets sops wrote: exit %d\n%s", code, got)
	}
	os.Remove(filepath.Join(out, "prd", "a", "manifest.yaml"))
	os.WriteFile(filepath.Join(out, "dev", "a", "manifest.yaml"), []byte("by: hand\n"), 0o644)
	testtool.WriteFiles(t, out, map[string]string{"old/gone/manifest.yaml": "a: 1\n", "old/gone/hydrator.metadata": "{}\n"})
	got, code := runCLI(t, "hydrate", repo, "--out", out, "--check")
	for _, want := range []string{"missing: prd/a/manifest.yaml\n", "differs: dev/a/manifest.yaml\n", "stale: old/gone/manifest.yaml\n",
		"1 missing, 1 differing, 2 stale files; hydrate it again"} {
		if code != cli.ExitFindings || !strings.Contains(got, want) {
			t.Errorf("--check of a damaged output: exit %d, want %q in\n%s", code, want, got)
		}
	}
}

// TestHydrateCheckBranches: --branch PREFIX --check checks each cluster's
// branch against the hydration of --dry, and a checkout of one branch is
// checked with --out, recognised as that cluster's; a branch that does
// not exist has every file missing, and a commit by hand to a branch is
// caught.
func TestHydrateCheckBranches(t *testing.T) {
	repo := sopsTwoTargets(t)
	if got, code := runCLI(t, "hydrate", repo, "--branch", "hydrated/", "--secrets", "sops"); code != cli.ExitOK {
		t.Fatalf("hydrate --branch: exit %d\n%s", code, got)
	}
	if got, code := runCLI(t, "hydrate", repo, "--branch", "hydrated/", "--check"); code != cli.ExitOK ||
		!strings.Contains(got, "the branches hydrated/* is the hydration of") {
		t.Errorf("--branch --check of fresh branches: exit %d\n%s", code, got)
	}
	if got, code := runCLI(t, "hydrate", repo, "--branch", "other/", "--check", "--secrets", "sops"); code != cli.ExitFindings ||
		!strings.Contains(got, "missing: other/dev:a/manifest.yaml") || !strings.Contains(got, "missing: other/prd:hydrator.metadata") {
		t.Errorf("--branch --check of branches that do not exist: exit %d\n%s", code, got)
	}
	checkout := filepath.Join(t.TempDir(), "checkout")
	gitOut(t, repo, "worktree", "add", "-q", checkout, "hydrated/dev")
	if got, code := runCLI(t, "hydrate", repo, "--out", checkout, "--check"); code != cli.ExitOK || !strings.Contains(got, "(the branch of cluster dev)") {
		t.Errorf("--check of a checkout of hydrated/dev: exit %d\n%s", code, got)
	}
	os.WriteFile(filepath.Join(checkout, "a", "manifest.yaml"), []byte("by: hand\n"), 0o644)
	if got, code := runCLI(t, "hydrate", repo, "--out", checkout, "--check"); code != cli.ExitFindings || !strings.Contains(got, "differs: a/manifest.yaml\n") {
		t.Errorf("--check of an edited checkout: exit %d\n%s", code, got)
	}
	commit := exec.Command("git", "-C", checkout, "commit", "-qam", "by hand")
	commit.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if b, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, b)
	}
	if got, code := runCLI(t, "hydrate", repo, "--branch", "hydrated/", "--check"); code != cli.ExitFindings ||
		!strings.Contains(got, "differs: hydrated/dev:a/manifest.yaml\n") || strings.Contains(got, "hydrated/prd:") {
		t.Errorf("--branch --check after a commit by hand: exit %d\n%s", code, got)
	}
}

// TestRenderSecretsRecorded: the command a hydrated folder's
// hydrator.metadata records, render --secrets sops, prints the target with
// its Secret SOPS-encrypted, no value in plain text; --secrets refuse
// fails the target, and --secrets with --no-decrypt is a usage error.
func TestRenderSecretsRecorded(t *testing.T) {
	repo := sopsTwoTargets(t)
	out := filepath.Join(t.TempDir(), "hydrated")
	if got, code := runCLI(t, "hydrate", repo, "--out", out, "--secrets", "sops"); code != cli.ExitOK {
		t.Fatalf("hydrate: exit %d\n%s", code, got)
	}
	meta, err := os.ReadFile(filepath.Join(out, "dev", "a", "hydrator.metadata"))
	if err != nil || !strings.Contains(string(meta), `"repotool render . --cluster dev --namespace a --secrets sops"`) {
		t.Fatalf("dev/a/hydrator.metadata does not record the mode: %v\n%s", err, meta)
	}
	got, code := runCLI(t, "render", repo, "--cluster", "dev", "--namespace", "a", "--secrets", "sops")
	if code != cli.ExitOK || !strings.Contains(got, "password: ENC[AES256_GCM,") || !strings.Contains(got, "sops:") || strings.Contains(got, "one") {
		t.Errorf("render --secrets sops: exit %d\n%s", code, got)
	}
	if got, code := runCLI(t, "render", repo, "--cluster", "dev", "--secrets", "refuse"); code != cli.ExitFindings || !strings.Contains(got, "secrets mode refuse") {
		t.Errorf("render --secrets refuse: exit %d\n%s", code, got)
	}
	if got, code := runCLI(t, "render", repo, "--cluster", "dev", "--secrets", "sops", "--no-decrypt"); code != cli.ExitError {
		t.Errorf("render --secrets --no-decrypt: exit %d\n%s", code, got)
	}
}

// TestHydrateRefuseHintOnce: with Secrets refused in two targets, each
// target is listed with its Secret and what to do is said once.
func TestHydrateRefuseHintOnce(t *testing.T) {
	repo := sopsTwoTargets(t)
	got, code := runCLI(t, "hydrate", repo, "--out", filepath.Join(t.TempDir(), "out"))
	if code != cli.ExitFindings || strings.Count(got, "--secrets sops") != 1 || strings.Count(got, "the rendering holds Secret a") != 2 ||
		!strings.Contains(got, "\nTo hydrate the targets that hold Secrets: write Secrets encrypted") {
		t.Errorf("exit %d\n%s", code, got)
	}
}
