package lint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestCommunityChartsAdmission deploys the community charts to a cluster
// whose policies are those of pkg/admission/testdata/docs-policies.yaml
// (after the Kubernetes documentation's examples, deployed by a
// cluster-tier namespace), with an application namespace labelled
// environment=test whose Deployment asks for 4 replicas from an image of
// another registry. The charts follow the policies: no finding may be
// about them. The application's Deployment is the control: exactly the
// replica limit from the param (3) and the registry are reported.
func TestCommunityChartsAdmission(t *testing.T) {
	root := communityRepo(t, "v1.34.0", "docs-policies.yaml", "  shop:\n    labels: {environment: test}\n", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: docker.io/shop:1.0
`, "replicas: 4\n")
	res := lintDir(t, root)
	var got []string
	for _, f := range res.Findings {
		if f.Rule != "admission-policy" {
			continue
		}
		got = append(got, f.File+": "+f.Message)
		if f.Object != "apps/v1/Deployment web" {
			t.Errorf("a finding about a community chart: %s:%d: %s", f.File, f.Line, f.Message)
		}
	}
	want := map[string]bool{
		"clusters/c1/shop/c1-values.yaml: ValidatingAdmissionPolicy replicalimit-policy.example.com (binding replicalimit-binding.example.com) would deny apps/v1/Deployment web in cluster c1: object.spec.replicas must be no greater than 3": true,
		"namespaces/shop/templates/app.yaml: ValidatingAdmissionPolicy image-registry.example.com (binding image-registry.example.com) would deny apps/v1/Deployment web in cluster c1: only images from registry.example.com are allowed":      true,
	}
	if len(got) != len(want) {
		t.Errorf("admission-policy findings:\n%q\nwant %d", got, len(want))
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected finding %s", g)
		}
	}
}

// TestCommunityChartsMutating deploys the community charts to a
// Kubernetes 1.36 cluster whose mutating policies are those of
// pkg/admission/testdata/docs-mutating-policies.yaml (deployed by a
// cluster-tier namespace), with an application namespace whose Deployment
// sets its image pull policy and has no memory limit. Every policy applies
// (no mutation fails on a real chart: no admission-policy finding); the
// only drift is the image pull policy each chart's Deployments set, which
// pull-always changes; the labels, annotations and limits the policies add
// are fields the manifests do not set.
func TestCommunityChartsMutating(t *testing.T) {
	root := communityRepo(t, "v1.36.0", "docs-mutating-policies.yaml", "", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example.com/shop:1.0
          imagePullPolicy: IfNotPresent
`, "{}\n")
	res := lintDir(t, root)
	drifted := map[string]bool{}
	for _, f := range res.Findings {
		switch f.Rule {
		case "admission-policy":
			t.Errorf("a mutating or validating policy fails: %s:%d: %s", f.File, f.Line, f.Message)
		case "admission-drift":
			if !strings.HasPrefix(f.Message, "MutatingAdmissionPolicy pull-always.example.com ") || !strings.Contains(f.Message, "/imagePullPolicy") ||
				!strings.HasPrefix(f.Object, "apps/v1/Deployment ") {
				t.Errorf("unexpected drift: %s:%d: %s", f.File, f.Line, f.Message)
			}
			drifted[f.Targets[0]] = true
		}
	}
	for _, target := range []string{"c1/shop", "c1/cert-manager", "c1/external-secrets", "c1/ingress-nginx"} {
		if !drifted[target] {
			t.Errorf("no drift in %s, whose Deployments set imagePullPolicy", target)
		}
	}
}

// communityRepo writes a repository deploying the community charts to a
// cluster c1 of kubeVersion, with policiesFile (under pkg/admission's
// testdata) deployed by a cluster-tier namespace, and an application
// namespace shop of one template; cfg adds namespaces' settings.
func communityRepo(t *testing.T, kubeVersion, policiesFile, cfg, shopTemplate, shopValues string) string {
	t.Helper()
	policies, err := os.ReadFile(filepath.Join("..", "admission", "testdata", policiesFile))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "repo")
	cfg = "clusters:\n  c1:\n    kubeVersion: " + kubeVersion + "\nnamespaces:\n  policies: {tier: cluster}\n" + cfg
	files := map[string]string{
		"namespaces/policies/Chart.yaml":              "apiVersion: v2\nname: policies\nversion: 1.0.0\n",
		"namespaces/policies/templates/policies.yaml": string(policies),
		"clusters/c1/policies/c1-values.yaml":         "{}\n",
		"namespaces/shop/Chart.yaml":                  "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
		"clusters/c1/shop/c1-values.yaml":             shopValues,
		"namespaces/shop/templates/app.yaml":          shopTemplate,
	}
	for _, c := range testtool.CommunityCharts {
		for p, data := range c.Files(t) {
			files["namespaces/"+c.Name+"/"+p] = data
		}
		cfg += "  " + c.Name + ": {tier: cluster}\n"
		files["clusters/c1/"+c.Name+"/c1-values.yaml"] = "{}\n"
	}
	files["repotool.yaml"] = cfg
	testtool.WriteFiles(t, root, files)
	return root
}
