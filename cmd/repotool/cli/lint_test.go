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

const strayCase = "../../../testdata/lint/stray-api-version/repo"

func TestLintCommand(t *testing.T) {
	withKey(t, true)
	runCases(t, []cliCase{
		{"clean text", []string{"lint", monorepo}, "lint-clean.txt", cli.ExitOK},
		{"clean json", []string{"lint", monorepo, "-o", "json"}, "lint-clean.json", cli.ExitOK},
		{"clean sarif", []string{"lint", monorepo, "-o", "sarif"}, "lint-clean.sarif", cli.ExitOK},
		{"findings", []string{"lint", strayCase}, "lint-stray.txt", cli.ExitFindings},
		{"warnings below the threshold", []string{"lint", "../../../testdata/lint/layout/repo", "--fail-on", "error", "-o", "json"}, "lint-layout.json", cli.ExitFindings},
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
	// The repository is a subfolder of its Git repository (the Action's
	// path: input): GitHub resolves paths from the Git root.
	repo := filepath.Join(dir, "git", "deploy", "gitops")
	if err := os.CopyFS(repo, os.DirFS(strayCase)); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, filepath.Join(dir, "git"), "the repository")
	got, code := runCLIEnv(t, cli.Env{Environ: []string{"GITHUB_STEP_SUMMARY=" + summary}}, "lint", repo, "-o", "github", "--sarif-file", sarif)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(got, "::error file=deploy/gitops/bootstrap/legacy-2019.yaml,line=4,title=repotool stray-api-version::") {
		t.Errorf("annotations not at paths from the Git root:\n%s", got)
	}
	s, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(s), "previous step\n## repotool lint\n") || !strings.Contains(string(s), "| error | `stray-api-version` |") {
		t.Errorf("step summary not appended:\n%s", s)
	}
	data, err := os.ReadFile(sarif)
	if err != nil || !strings.Contains(string(data), `"version": "2.1.0"`) || !strings.Contains(string(data), `"uri": "deploy/gitops/bootstrap/legacy-2019.yaml"`) {
		t.Errorf("SARIF file: %v\n%s", err, data)
	}
	if !strings.Contains(string(s), "`deploy/gitops/bootstrap/legacy-2019.yaml:4`") {
		t.Errorf("step summary paths are not from the Git root:\n%s", s)
	}
}

// TestLintNeverPrintsSecrets runs every format over the plaintext-secret
// case, whose files hold plain-text secrets, and the fixture.
func TestLintNeverPrintsSecrets(t *testing.T) {
	withKey(t, true)
	for _, repo := range []string{"../../../testdata/lint/plaintext-secret/repo", "../../../testdata/lint/invalid-suppression/repo", monorepo} {
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

// TestLintNoDecrypt: without any key, --no-decrypt lints the fixture as
// with the key: its one finding is the admission-policy warning.
func TestLintNoDecrypt(t *testing.T) {
	withKey(t, false)
	if out, code := runCLI(t, "lint", monorepo); code != cli.ExitFindings || !strings.Contains(out, "[render]") {
		t.Errorf("without a key: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "lint", monorepo, "--no-decrypt"); code != cli.ExitOK || !strings.HasSuffix(out, "0 errors, 2 warnings, 0 infos in 11 targets (11 rendered)\n") {
		t.Errorf("--no-decrypt: exit %d\n%s", code, out)
	}
}

func TestVersionCommand(t *testing.T) {
	got, code := runCLI(t, "version")
	if code != cli.ExitOK || !strings.HasPrefix(got, "repotool (devel)\ncommit:      ") || !strings.Contains(got, "\ngo:          go1.") {
		t.Errorf("version: exit %d, %q", code, got)
	}
	// A binary records its dependencies (a test binary does not).
	out, err := exec.Command(testtool.Repotool(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nhelm:        v3.", "\nsops:        v3.", "\nkubeconform: v", "\nkubernetes:  schemas for 1.29 to 1."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("version does not say %q:\n%s", want, out)
		}
	}
	flag, _ := runCLIEnv(t, cli.Env{Version: "v1.2.3"}, "--version")
	cmd, _ := runCLIEnv(t, cli.Env{Version: "v1.2.3"}, "version")
	if !strings.HasPrefix(cmd, "repotool v1.2.3\n") || flag != cmd {
		t.Errorf("version = %q, --version = %q", cmd, flag)
	}
}

// TestLintDeterministicUnknownFields: an object with several unknown fields
// gave a message listing them in a different order on each run, at a line
// that moved with the first one. Twenty runs must print the same bytes.
func TestLintDeterministicUnknownFields(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		"namespaces/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  zeta: 1
  replicas: 1
  alpha: 2
  selector:
    matchLabels: {app: app}
  mid: 3
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: app:1
          omega: x
          beta: y
          gamma: z
`,
		"clusters/dev/app/dev-values.yaml": "a: 1\n",
	}
	testtool.WriteFiles(t, repo, files)
	first, code := runCLI(t, "lint", repo, "-o", "json")
	if code != cli.ExitFindings || !strings.Contains(first, "additional properties 'alpha', 'mid', 'zeta' not allowed") || !strings.Contains(first, "additional properties 'beta', 'gamma', 'omega' not allowed") {
		t.Fatalf("exit %d\n%s", code, first)
	}
	if !strings.Contains(first, `"line": 8,`) {
		t.Errorf("the finding is not at the first unknown field in name order (alpha, line 8):\n%s", first)
	}
	for range 19 {
		if again, _ := runCLI(t, "lint", repo, "-o", "json"); again != first {
			t.Fatalf("lint -o json differs between runs:\n%s\n---\n%s", first, again)
		}
	}
}

// TestLintSchemaLocations: lint.schemaLocations as documented, on a fresh
// machine (no cache folder yet), from another working directory: folder
// locations are the repository's, the cache folder is created, --offline
// keeps URL locations out, and a location that cannot be reached is a
// failure of the tool (exit 2), never a finding. (Before, the missing cache
// folder turned every custom resource into a false finding.)
func TestLintSchemaLocations(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		"namespaces/app/Chart.yaml":            "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/widget.yaml": "apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: small\n",
		"clusters/dev/app/dev-values.yaml":     "a: 1\n",
		"schemas/v1.31-standalone-strict/widget-acme-v1.json": `{"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
  "spec": {"type": "object", "properties": {"size": {"type": "string", "enum": ["big"]}}, "additionalProperties": false}}, "additionalProperties": false}`,
	}
	write := func(cfg string) {
		files["repotool.yaml"] = "clusters:\n  dev: {kubeVersion: v1.31.0, apiVersions: [acme.io/v1]}\nlint:\n  schemaLocations:\n" + cfg
		testtool.WriteFiles(t, repo, files)
	}
	cache := filepath.Join(t.TempDir(), "fresh", "cache")
	t.Setenv("REPOTOOL_CACHE_DIR", cache)
	env := cli.Env{Dir: t.TempDir(), Environ: []string{"REPOTOOL_CACHE_DIR=" + cache}}
	unreachable := "    - http://127.0.0.1:1/{{ .ResourceKind }}.json\n"

	write("    - schemas/\n" + unreachable)
	got, code := runCLIEnv(t, env, "lint", repo, "--offline")
	if code != cli.ExitFindings || !strings.Contains(got, "Widget w: /spec/size: value must be 'big'") || strings.Contains(got, "cannot be validated") {
		t.Errorf("folder location, offline: exit %d\n%s", code, got)
	}

	write(unreachable)
	got, code = runCLIEnv(t, env, "lint", repo)
	if code != cli.ExitError || !strings.Contains(got, "cannot validate Widget w") || strings.Contains(got, "[schema]") {
		t.Errorf("unreachable location: exit %d, want 2 and no finding\n%s", code, got)
	}
	if st, err := os.Stat(filepath.Join(cache, "schemas")); err != nil || !st.IsDir() {
		t.Errorf("the schema cache folder was not created: %v", err)
	}
	got, code = runCLIEnv(t, env, "lint", repo, "--offline")
	if code != cli.ExitOK {
		t.Errorf("unreachable location, offline: exit %d, want 0 (nothing downloaded)\n%s", code, got)
	}
}

// TestLintBaseline: --write-baseline records today's findings; --baseline
// then reports only new ones, says how many it left out, and still fails
// on a new one. A broken baseline file is a usage error.
func TestLintBaseline(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(strayCase)); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	out, code := runCLI(t, "lint", repo, "--write-baseline", baseline)
	if code != cli.ExitOK || !strings.Contains(out, "recorded 16 findings in "+baseline) {
		t.Fatalf("--write-baseline: exit %d\n%s", code, out)
	}
	first, _ := os.ReadFile(baseline)
	runCLI(t, "lint", repo, "--write-baseline", baseline)
	if again, _ := os.ReadFile(baseline); string(again) != string(first) {
		t.Error("the baseline differs between runs")
	}
	out, code = runCLI(t, "lint", repo, "--baseline", baseline)
	if code != cli.ExitOK || out != "no problems found in 2 targets (16 in the baseline)\n" {
		t.Errorf("--baseline on the same repository: exit %d\n%s", code, out)
	}
	// A cluster upgrade changes messages, not fingerprints.
	cfg, _ := os.ReadFile(filepath.Join(repo, "repotool.yaml"))
	os.WriteFile(filepath.Join(repo, "repotool.yaml"), []byte(strings.Replace(string(cfg), "v1.34.1", "v1.35.0", 1)), 0o644)
	if out, code = runCLI(t, "lint", repo, "--baseline", baseline); code != cli.ExitOK {
		t.Errorf("--baseline after raising kubeVersion: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(repo, "bootstrap", "new.yaml"), []byte("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: fresh\n"), 0o644)
	out, code = runCLI(t, "lint", repo, "--baseline", baseline)
	if code != cli.ExitFindings || !strings.Contains(out, "bootstrap/new.yaml") || strings.Count(out, "error [stray-api-version]") != 1 || !strings.Contains(out, "16 in the baseline") {
		t.Errorf("--baseline with a new finding: exit %d\n%s", code, out)
	}
	os.WriteFile(baseline, []byte("{\"version\": 7}"), 0o644)
	if out, code = runCLI(t, "lint", repo, "--baseline", baseline); code != cli.ExitError || !strings.Contains(out, "baseline version 7") {
		t.Errorf("broken baseline: exit %d\n%s", code, out)
	}
}
