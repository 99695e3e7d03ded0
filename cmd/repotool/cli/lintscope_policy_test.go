package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestChangedSinceWidensToTheCluster: a change that adds an admission
// policy denying an unchanged target's object is found by lint
// --changed-since as by a full lint: a policy applies to every object of
// its cluster, so the change is checked over the whole cluster.
func TestChangedSinceWidensToTheCluster(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	testtool.WriteFiles(t, dir, map[string]string{"namespaces/policies/templates/no-storefront-config.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-storefront-config
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [configmaps]
  validations:
    - expression: "object.metadata.name != 'storefront'"
      message: the storefront ConfigMap is refused
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-storefront-config
spec:
  policyName: no-storefront-config
  validationActions: [Deny]
`})
	full, fullCode := runCLI(t, "lint", dir, "-o", "json")
	changed, changedCode := runCLI(t, "lint", dir, "--changed-since", "HEAD", "-o", "json")
	for name, out := range map[string]string{"full": full, "--changed-since": changed} {
		if !strings.Contains(out, "the storefront ConfigMap is refused") || !strings.Contains(out, "prod-cluster/namespace-a") {
			t.Errorf("%s lint does not find the denial of the unchanged target:\n%s", name, out)
		}
	}
	if fullCode != cli.ExitFindings || changedCode != fullCode {
		t.Errorf("exit %d (full) and %d (--changed-since), want %d both", fullCode, changedCode, cli.ExitFindings)
	}
	if !strings.Contains(changed, `"targets": `) || strings.Contains(changed, "dev-cluster/namespace-a") {
		t.Errorf("--changed-since lints another cluster than the policy's:\n%s", changed)
	}
}
