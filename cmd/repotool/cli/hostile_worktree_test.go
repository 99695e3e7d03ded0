package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// gitCredential is the token actions/checkout leaves in .git/config, and
// cloudCredential what a cloud login action leaves in an ignored file of
// the work tree: canaries (canaryFragments finds "Canary").
const (
	gitCredential   = "CanaryGitCredential8812"
	cloudCredential = "CanaryCloudCredential3391"
)

// plantCredentials makes the work tree of the committed repository dir
// hold what a CI job leaves in it: the job's Git credential in
// .git/config, and a cloud login's credentials in a file Git ignores
// (.gitignore is committed with ns's chart). ns's chart links to both
// and prints them in a template's failure, so that a reader that follows
// the links shows them. Call it before the first commit of dir and
// credentials after it.
func plantCredentials(t *testing.T, dir, cluster, ns string) (credentials func()) {
	t.Helper()
	testtool.WriteFiles(t, dir, map[string]string{
		".gitignore":                              "gha-creds-*.json\n",
		"namespaces/" + ns + "/Chart.yaml":        "apiVersion: v2\nname: " + ns + "\nversion: 1.0.0\n",
		"namespaces/" + ns + "/templates/cm.yaml": "{{ fail (cat (.Files.Get \"files/gitcfg\") (.Files.Get \"files/creds\")) }}\n",
		"clusters/" + cluster + "/" + ns + "/" + cluster + "-values-" + ns + ".yaml": "plain: value\n",
	})
	for link, target := range map[string]string{"gitcfg": "../../../.git/config", "creds": "../../../gha-creds-1.json"} {
		p := filepath.Join(dir, "namespaces", ns, "files", link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		cfg := filepath.Join(dir, ".git", "config")
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic "+gitCredential+"\n"...)
		testtool.WriteFiles(t, dir, map[string]string{
			".git/config":      string(data),
			"gha-creds-1.json": `{"type": "external_account", "token": "` + cloudCredential + `"}` + "\n",
		})
	}
}

// TestHostileWorkTreeCredentials: a pull request's chart links to the CI
// job's Git credential (.git/config) and to a credentials file Git
// ignores, and prints them in a template's failure. No command shows
// either, in any format; the target fails, naming the links.
func TestHostileWorkTreeCredentials(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	credentials := plantCredentials(t, dir, "dev-cluster", "leak")
	testtool.GitCommit(t, dir, "base")
	credentials()
	// The change under review touches the target, so diff renders it.
	testtool.WriteFiles(t, dir, map[string]string{"clusters/dev-cluster/leak/dev-cluster-values-leak.yaml": "plain: changed\n"})
	runs := [][]string{
		{"lint", dir},
		{"lint", dir, "-o", "json"},
		{"lint", dir, "-o", "github"},
		{"lint", dir, "-o", "sarif"},
		{"layout", dir},
		{"render", dir, "-c", "dev-cluster", "-n", "leak"},
		{"render", dir, "--all", "--redact"},
		{"values", dir, "-c", "dev-cluster", "-n", "leak"},
		{"diff", dir, "--base", "HEAD"},
		{"diff", dir, "--base", "HEAD", "-o", "markdown"},
		{"diff", dir, "--base", "HEAD", "-o", "json"},
		{"hydrate", dir, "--out", filepath.Join(t.TempDir(), "out")},
	}
	for _, args := range runs {
		out, _ := runCLI(t, args...)
		for _, canary := range []string{gitCredential, cloudCredential, "AUTHORIZATION", "external_account"} {
			if strings.Contains(out, canary) {
				t.Errorf("%v shows %q:\n%s", args, canary, out)
			}
		}
	}
	out, code := runCLI(t, "lint", dir)
	text := unwrap(out)
	if code == 0 || !strings.Contains(text, "namespaces/leak/files/gitcfg") || !strings.Contains(text, "Git's directory") ||
		!strings.Contains(text, "namespaces/leak/files/creds") || !strings.Contains(text, "Git ignores") {
		t.Errorf("lint does not fail the target naming both links (exit %d):\n%s", code, out)
	}
}

// TestGitIgnoredChartFile: a file of a chart that Git ignores is left out
// of the chart, as a checkout lacks it, with a git-ignored warning (an
// error under CI).
func TestGitIgnoredChartFile(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, dir, map[string]string{
		".gitignore": "*.local.yaml\n",
		"namespaces/namespace-a/templates/debug.local.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local-only\n",
	})
	testtool.GitCommit(t, dir, "base")
	out, _ := runCLI(t, "render", dir, "-c", "dev-cluster", "-n", "namespace-a")
	if strings.Contains(out, "local-only") {
		t.Errorf("render rendered a template Git ignores:\n%s", out)
	}
	if !strings.Contains(out, "git-ignored") || !strings.Contains(out, "namespaces/namespace-a/templates/debug.local.yaml") {
		t.Errorf("render does not say the file is left out:\n%s", out)
	}
	out, _ = runCLI(t, "layout", dir)
	if !strings.Contains(out, "warning") || !strings.Contains(out, "debug.local.yaml") {
		t.Errorf("layout does not warn about the file:\n%s", out)
	}
}
