package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestGitIgnoredValues: in a Git work tree, a values file Git ignores (a
// developer's local override) is no input of any target, since Argo CD
// renders from Git and never sees it: every command that reads the work
// tree leaves it out with a git-ignored warning naming it, an error under
// lint --strict and under CI=true; outside a work tree it is an input like
// any other.
func TestGitIgnoredValues(t *testing.T) {
	testtool.Require(t, "git")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  replicas: {{ .Values.replicas | quote }}\n",
		"clusters/dev/a/dev-values-a.yaml": "replicas: 1\n",
		".gitignore":                       "*-values-local.yaml\n",
	}
	testtool.WriteFiles(t, repo, files)
	testtool.GitCommit(t, repo, "first")
	testtool.WriteFiles(t, repo, map[string]string{"clusters/dev/a/dev-values-local.yaml": "replicas: 7\n"})
	const ignored = "clusters/dev/a/dev-values-local.yaml: warning: Git ignores this values file"

	out, code := runCLI(t, "render", repo, "--cluster", "dev", "--namespace", "a")
	if code != cli.ExitOK || !strings.Contains(out, "replicas: \"1\"\n") || !strings.Contains(out, ignored) {
		t.Errorf("render: exit %d, want the committed replicas and the warning\n%s", code, out)
	}
	for _, args := range [][]string{{"layout", repo}, {"lint", repo, "--no-decrypt"}, {"values", repo, "--cluster", "dev", "--namespace", "a"},
		{"diff", repo, "--base", "HEAD"}} {
		if out, code := runCLI(t, args...); code != cli.ExitOK || !strings.Contains(out, "dev-values-local.yaml") || strings.Contains(out, "7") {
			t.Errorf("%s: exit %d, want the file named and its values left out\n%s", args[0], code, out)
		}
	}
	if out, code := runCLI(t, "diff", repo, "--base", "HEAD", "--exit-code"); code != cli.ExitOK || !strings.Contains(out, "no target is affected") {
		t.Errorf("diff of the work tree: exit %d, want no change\n%s", code, out)
	}
	out, code = runCLI(t, "lint", repo, "--no-decrypt", "--strict")
	if code != cli.ExitFindings || !strings.Contains(out, "dev-values-local.yaml") || !strings.Contains(out, "error") {
		t.Errorf("lint --strict: exit %d\n%s", code, out)
	}
	out, code = runCLIEnv(t, cli.Env{Environ: []string{"CI=true"}}, "render", repo, "--cluster", "dev", "--namespace", "a")
	if code == cli.ExitOK || !strings.Contains(out, "Git ignores this values file") {
		t.Errorf("render under CI=true: exit %d, want the target failed\n%s", code, out)
	}
	// Outside a work tree, nothing is ignored.
	plain := filepath.Join(t.TempDir(), "plain")
	testtool.WriteFiles(t, plain, files)
	testtool.WriteFiles(t, plain, map[string]string{"clusters/dev/a/dev-values-local.yaml": "replicas: 7\n"})
	if out, code := runCLI(t, "render", plain, "--cluster", "dev", "--namespace", "a"); code != cli.ExitOK || !strings.Contains(out, "replicas: \"7\"\n") {
		t.Errorf("render outside a work tree: exit %d\n%s", code, out)
	}
}
