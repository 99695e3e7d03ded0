package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/lint"
)

// TestAdmissionFindingAtEscapedKey: a policy that refuses a label whose
// key holds "/" (app.kubernetes.io/name, "~1" in the field's JSON
// pointer) is reported at the values line that set the label, as one
// under a plain key is: the pointer is unescaped before it is looked up.
func TestAdmissionFindingAtEscapedKey(t *testing.T) {
	useTestKey(t)
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"repotool.yaml":                  "namespaces:\n  platform: {tier: cluster}\nclusters:\n  c1: {kubeVersion: v1.33.0}\n",
		"namespaces/platform/Chart.yaml": "apiVersion: v2\nname: platform\nversion: 1.0.0\n",
		"namespaces/platform/templates/policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: named-apps
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [configmaps]
  validations:
    - expression: "!has(object.metadata.labels) || object.metadata.labels['app.kubernetes.io/name'] != 'forbidden-name'"
      message: this name is reserved
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: named-apps
spec:
  policyName: named-apps
  validationActions: [Deny]
`,
		"clusters/c1/platform/c1-values.yaml": "{}\n",
		"namespaces/shop/Chart.yaml":          "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
		"namespaces/shop/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\n  labels:\n" +
			"    {{- toYaml .Values.labels | nindent 4 }}\ndata:\n  mode: web\n",
		"clusters/c1/shop/c1-values.yaml": "labels:\n  team: shop\n  app.kubernetes.io/name: forbidden-name\n",
	})
	r, opts := loadCase(t, repo)
	res, err := lint.Lint(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		if f.Rule != "admission-policy" || !strings.Contains(f.Message, "this name is reserved") {
			continue
		}
		found = true
		if f.File != "clusters/c1/shop/c1-values.yaml" || f.Line != 3 {
			t.Errorf("the finding is at %s:%d, want clusters/c1/shop/c1-values.yaml:3 (the label's values line)", f.File, f.Line)
		}
	}
	if !found {
		t.Fatalf("no admission-policy finding:\n%+v", res.Findings)
	}
}
