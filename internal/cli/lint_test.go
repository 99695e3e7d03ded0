package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/cli"
)

const strayCase = "../../testdata/lint/stray-api-version/repo"

func TestLintCommand(t *testing.T) {
	withKey(t, true)
	runCases(t, []cliCase{
		{"clean text", []string{"lint", monorepo}, "lint-clean.txt", cli.ExitOK},
		{"clean json", []string{"lint", monorepo, "-o", "json"}, "lint-clean.json", cli.ExitOK},
		{"clean sarif", []string{"lint", monorepo, "-o", "sarif"}, "lint-clean.sarif", cli.ExitOK},
		{"findings", []string{"lint", strayCase}, "lint-stray.txt", cli.ExitFindings},
		{"warnings below the threshold", []string{"lint", "../../testdata/lint/layout/repo", "--fail-on", "error", "-o", "json"}, "lint-layout.json", cli.ExitFindings},
		{"bad fail-on", []string{"lint", monorepo, "--fail-on", "fatal"}, "lint-bad-fail-on.txt", cli.ExitError},
		{"bad format", []string{"lint", monorepo, "-o", "junit"}, "lint-bad-format.txt", cli.ExitError},
		{"invalid repotool.yaml", []string{"lint", "testdata/badconfig"}, "lint-badconfig.txt", cli.ExitError},
	})
}

func TestLintFailOnWarning(t *testing.T) {
	withKey(t, true)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	// A namespace chart no cluster deploys: a warning only.
	os.MkdirAll(filepath.Join(dir, "namespaces", "unused"), 0o755)
	os.WriteFile(filepath.Join(dir, "namespaces", "unused", "Chart.yaml"), []byte("apiVersion: v2\nname: unused\nversion: 1.0.0\n"), 0o644)
	if _, code := runCLI(t, "lint", dir); code != cli.ExitOK {
		t.Errorf("warning with --fail-on error: exit %d, want 0", code)
	}
	if _, code := runCLI(t, "lint", dir, "--fail-on", "warning"); code != cli.ExitFindings {
		t.Errorf("warning with --fail-on warning: exit %d, want 1", code)
	}
}

func TestLintGitHubAndSARIFFile(t *testing.T) {
	withKey(t, true)
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("previous step\n"), 0o644)
	sarif := filepath.Join(dir, "out", "repotool.sarif")
	got, code := runCLIEnv(t, cli.Env{Environ: []string{"GITHUB_STEP_SUMMARY=" + summary}}, "lint", strayCase, "-o", "github", "--sarif-file", sarif)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(got, "::error file=namespaces/app/templates/acme.yaml,line=1,title=repotool stray-api-version::") {
		t.Errorf("not annotations:\n%s", got)
	}
	s, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(s), "previous step\n## repotool lint\n") || !strings.Contains(string(s), "| error | `stray-api-version` |") {
		t.Errorf("step summary not appended:\n%s", s)
	}
	data, err := os.ReadFile(sarif)
	if err != nil || !strings.Contains(string(data), `"version": "2.1.0"`) {
		t.Errorf("SARIF file: %v\n%s", err, data)
	}
}

// TestLintNeverPrintsSecrets runs every format over the plaintext-secret
// case, whose files hold plain-text secrets, and the fixture.
func TestLintNeverPrintsSecrets(t *testing.T) {
	withKey(t, true)
	for _, repo := range []string{"../../testdata/lint/plaintext-secret/repo", "../../testdata/lint/invalid-suppression/repo", monorepo} {
		for _, format := range []string{"text", "json", "sarif", "github"} {
			got, _ := runCLI(t, "lint", repo, "-o", format)
			for _, s := range []string{"hunter2", "sk_live_fixture_51", "tok_fixture_9f2", "s3cr3t-in-template", "vault-root-fixture", "tok_dev_storefront", "pk_sandbox_billing", "hvs.dev."} {
				if strings.Contains(got, s) {
					t.Errorf("lint %s -o %s prints the secret %q", repo, format, s)
				}
			}
		}
	}
}

// TestLintNoDecrypt: without any key, --no-decrypt lints the fixture clean.
func TestLintNoDecrypt(t *testing.T) {
	withKey(t, false)
	if out, code := runCLI(t, "lint", monorepo); code != cli.ExitFindings || !strings.Contains(out, "[render]") {
		t.Errorf("without a key: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "lint", monorepo, "--no-decrypt"); code != cli.ExitOK || out != "no problems found in 9 targets\n" {
		t.Errorf("--no-decrypt: exit %d\n%s", code, out)
	}
}

func TestVersionCommand(t *testing.T) {
	got, code := runCLI(t, "version")
	if code != cli.ExitOK || got != "(devel)\n" {
		t.Errorf("version: exit %d, %q", code, got)
	}
	got, _ = runCLIEnv(t, cli.Env{Version: "v1.2.3"}, "version")
	if got != "v1.2.3\n" {
		t.Errorf("version = %q", got)
	}
}
