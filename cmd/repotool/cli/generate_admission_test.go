package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestGenerateAdmissionIgnores: with argocd.admissionIgnoreDifferences,
// generate writes into prod's namespace-b Application the field prod's
// always-pull-images policy changes, and nothing into the others; lint
// then has no drift to report; generate --check sees the entry go stale
// when the policy goes.
func TestGenerateAdmissionIgnores(t *testing.T) {
	dir := committedMonorepo(t)
	cfg := filepath.Join(dir, "repotool.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "argocd:\n", "argocd:\n  admissionIgnoreDifferences: true\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "generate", dir)
	if code != cli.ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, out)
	}
	app, err := os.ReadFile(filepath.Join(dir, "argocd", "prod-cluster", "application-namespace-b.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const entry = `  ignoreDifferences:
  - group: apps
    jsonPointers:
    - /spec/template/spec/containers/0/imagePullPolicy
    kind: Deployment
    name: orders-api
    namespace: namespace-b
`
	if !strings.Contains(string(app), entry) {
		t.Errorf("prod's namespace-b Application has no entry for the policy's field:\n%s", app)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "argocd", "*", "application-*.yaml"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), "ignoreDifferences") != strings.HasSuffix(f, filepath.Join("prod-cluster", "application-namespace-b.yaml")) {
			t.Errorf("%s: ignoreDifferences where no policy changes a field, or none where one does", f)
		}
	}
	if out, code := runCLI(t, "lint", dir); code != cli.ExitOK || strings.Contains(out, "admission-drift") || !strings.Contains(out, "1 warning") {
		t.Errorf("lint with the entries generated: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "generate", dir, "--check"); code != cli.ExitOK {
		t.Errorf("generate --check after generate: exit %d\n%s", code, out)
	}
	values := filepath.Join(dir, "clusters", "prod-cluster", "policies", "prod-values-policies.yaml")
	data, _ = os.ReadFile(values)
	if err := os.WriteFile(values, []byte(strings.Replace(string(data), "alwaysPullImages: true", "alwaysPullImages: false", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI(t, "generate", dir, "--check"); code != cli.ExitFindings || !strings.Contains(out, "application-namespace-b.yaml") {
		t.Errorf("generate --check once the policy is gone: exit %d\n%s", code, out)
	}
}

// TestGenerateAdmissionIgnoresSecretKey: on the canary repository, a
// mutating policy changes the value of a data key that is a secret value:
// generate with argocd.admissionIgnoreDifferences refuses to write an
// entry naming it, writes nothing, and says why without the value.
func TestGenerateAdmissionIgnoresSecretKey(t *testing.T) {
	testtool.UseTestKey(t)
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../../testdata/canary")); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"failing", "strict"} { // they fail to render, and so would generate
		if err := os.RemoveAll(filepath.Join(repo, "clusters", "dev", ns)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(repo, "repotool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("argocd:\n  admissionIgnoreDifferences: true\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, code := runCLI(t, "generate", repo)
	if code == cli.ExitOK || !strings.Contains(out, "a field whose name holds a secret value in v1/ConfigMap leaky-keyed in cluster dev") {
		t.Errorf("generate: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(repo, "argocd")); !os.IsNotExist(err) {
		t.Errorf("generate wrote its folder: %v", err)
	}
	for _, frag := range canaryFragments() {
		if strings.Contains(out, frag) {
			t.Errorf("generate's output holds the canary fragment %q:\n%s", frag, out)
		}
	}
}
