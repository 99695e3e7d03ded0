package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// gitOut runs git in dir and returns its output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestHostileHydrateDestinations: a --branch prefix that makes names Git
// refuses (.., a space, a component starting with .), or that climbs out
// of refs/heads into .git/hooks, and an --out that is Git's directory or a
// folder the layout owns, are refused before anything is written.
func TestHostileHydrateDestinations(t *testing.T) {
	testtool.Require(t, "git")
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, twoTargetFiles(""))
	testtool.GitCommit(t, repo, "dry")
	refs := gitOut(t, repo, "for-each-ref")
	for _, prefix := range []string{"a..b/", "sp ace/", "../x/", "../../hooks/pre-commit-", ".hidden/", "x.lock/"} {
		out, code := runCLI(t, "hydrate", repo, "--branch", prefix)
		if code != cli.ExitError || !strings.Contains(out, "is not a valid Git branch name") {
			t.Errorf("--branch %q: exit %d\n%s", prefix, code, out)
		}
	}
	if got := gitOut(t, repo, "for-each-ref"); got != refs {
		t.Errorf("references were written:\n%s", got)
	}
	if hooks, _ := filepath.Glob(filepath.Join(repo, ".git", "hooks", "pre-commit-*")); len(hooks) > 0 {
		t.Errorf("files written into .git/hooks: %v", hooks)
	}
	for _, dir := range []string{".git", ".git/refs", ".", "clusters", "clusters/dev", "namespaces/a"} {
		out, code := runCLI(t, "hydrate", repo, "--out", filepath.Join(repo, dir))
		if code != cli.ExitError || !strings.Contains(out, "give a folder of its own") {
			t.Errorf("--out %s: exit %d\n%s", dir, code, out)
		}
	}
	if st := gitOut(t, repo, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("files were written:\n%s", st)
	}
	if out, code := runCLI(t, "hydrate", repo, "--out", filepath.Join(repo, "hydrated")); code != cli.ExitOK {
		t.Errorf("--out hydrated: exit %d\n%s", code, out)
	}
}

// TestConcurrentHydrations: hydrations of one dry commit running at once
// on one prefix make one commit per branch, not one each with Secrets
// encrypted anew: a branch that moved since a run read it is not
// committed to by that run.
func TestConcurrentHydrations(t *testing.T) {
	repo := sopsTwoTargets(t)
	var wg sync.WaitGroup
	outs := make([]string, 4)
	codes := make([]int, 4)
	for i := range outs {
		wg.Go(func() { outs[i], codes[i] = runCLI(t, "hydrate", repo, "--branch", "hydrated/", "--secrets", "sops") })
	}
	wg.Wait()
	ok := 0
	for i, code := range codes {
		switch {
		case code == cli.ExitOK:
			ok++
		case code != cli.ExitError || !strings.Contains(outs[i], "run hydrate again"):
			t.Errorf("run %d: exit %d\n%s", i, code, outs[i])
		}
	}
	if ok == 0 {
		t.Errorf("no run succeeded:\n%s", strings.Join(outs, "\n"))
	}
	for _, b := range []string{"hydrated/dev", "hydrated/prd"} {
		if n := strings.TrimSpace(gitOut(t, repo, "rev-list", "--count", b)); n != "1" {
			t.Errorf("%s has %s commits for one dry commit:\n%s", b, n, gitOut(t, repo, "log", "--stat", b))
		}
	}
	// Run again, alone: nothing to commit, the Secrets keep their ciphertext.
	if out, code := runCLI(t, "hydrate", repo, "--branch", "hydrated/", "--secrets", "sops"); code != cli.ExitOK || strings.Count(out, "(unchanged)") != 2 {
		t.Errorf("again: exit %d\n%s", code, out)
	}

}
