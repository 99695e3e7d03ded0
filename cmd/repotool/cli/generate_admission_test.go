package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
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
