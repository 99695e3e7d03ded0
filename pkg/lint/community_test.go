package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// crossObjectRules are the rules that relate objects to each other.
var crossObjectRules = []string{"duplicate-object", "project-permission", "secret-conflict", "secret-reference", "secret-store-reference"}

// TestCommunityCharts renders real community charts with their defaults,
// as the cluster tier of one cluster, with an application namespace that
// uses them the way teams do (an ExternalSecret from a ClusterSecretStore
// the platform declares, an Ingress whose certificate cert-manager makes):
// every chart renders, and the cross-object rules find nothing.
func TestCommunityCharts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	cfg := "clusters:\n  c1:\n    kubeVersion: v1.34.0\n    provided: [\"ClusterSecretStore vault\"]\nnamespaces:\n"
	for _, c := range testtool.CommunityCharts {
		files := map[string]string{}
		for p, data := range c.Files(t) {
			files["namespaces/"+c.Name+"/"+p] = data
		}
		testtool.WriteFiles(t, root, files)
		cfg += "  " + c.Name + ": {tier: cluster}\n"
		testtool.WriteFiles(t, root, map[string]string{"clusters/c1/" + c.Name + "/c1-values.yaml": "{}\n"})
	}
	testtool.WriteFiles(t, root, map[string]string{
		"repotool.yaml":                   cfg,
		"namespaces/shop/Chart.yaml":      "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
		"clusters/c1/shop/c1-values.yaml": "host: shop.example.com\n",
		"namespaces/shop/templates/app.yaml": `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: shop-db}
  dataFrom:
    - extract: {key: shop/db}
---
apiVersion: apps/v1
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
          image: shop:1.0
          envFrom:
            - secretRef: {name: shop-db}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
spec:
  ingressClassName: nginx
  tls:
    - secretName: web-tls
      hosts: [{{ .Values.host }}]
  rules:
    - host: {{ .Values.host }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: web, port: {number: 80}}}
`,
	})
	res := lintDir(t, root)
	if res.Summary.Rendered != len(testtool.CommunityCharts)+1 {
		t.Errorf("%d of %d targets rendered", res.Summary.Rendered, len(testtool.CommunityCharts)+1)
	}
	counts := map[string]int{}
	for _, f := range res.Findings {
		counts[f.Rule]++
		// unstable-render: the charts mention lookup and now only in
		// text (CRD descriptions, a dashboard, the README), and their
		// defaults call neither: no finding may come of it.
		if slices.Contains(crossObjectRules, f.Rule) || f.Rule == "render" || f.Rule == "unstable-render" {
			t.Errorf("%s:%d: %s: %s", f.File, f.Line, f.Rule, f.Message)
		}
	}
	t.Logf("findings by rule: %v", counts)
}

// TestUnstableRenderRedis: the stable/redis chart of 2018 (Argo CD's
// test data) defaults its password to randAlphaNum: with its defaults the
// rule reports that line, for that target only; with a password set, or
// with usePassword off, the call is not made (the template takes another
// branch) and nothing is reported.
func TestUnstableRenderRedis(t *testing.T) {
	src := filepath.Join(testtool.CorpusDir(t, "github.com/argoproj/argo-cd/v3"), "util", "helm", "testdata", "redis")
	files := map[string]string{
		"repotool.yaml":                    "clusters:\n  c1: {kubeVersion: v1.34.0}\n  c2: {kubeVersion: v1.34.0}\n  c3: {kubeVersion: v1.34.0}\n",
		"clusters/c1/redis/c1-values.yaml": "{}\n",
		"clusters/c2/redis/c2-values.yaml": "usePassword: false\n",
		"clusters/c3/redis/c3-values.yaml": "password: not-random\n",
	}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		files["namespaces/redis/"+filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, root, files)
	res := lintDir(t, root)
	var got []string
	for _, f := range res.Findings {
		if f.Rule == "unstable-render" {
			got = append(got, fmt.Sprintf("%s:%d %v %s", f.File, f.Line, f.Targets, f.Message))
		}
	}
	want := []string{"namespaces/redis/templates/secrets.yaml:18 [c1/redis] randAlphaNum makes a random value: the rendering changes on every run with no change to the repository"}
	if !slices.Equal(got, want) {
		t.Errorf("unstable-render findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCommunityChartsValuesUnused: the three community charts with the
// values their documentation shows (keys the charts declare, and keys
// under maps they leave free-form) give values-unused nothing, and the
// typos seeded in the cluster files are each found with the key meant
// (cert-manager's values.schema.json refuses unknown keys before that).
func TestCommunityChartsValuesUnused(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	cfg := "clusters:\n  c1:\n    kubeVersion: v1.34.0\nnamespaces:\n"
	documented := map[string]string{
		"cert-manager":     "crds:\n  enabled: true\nreplicaCount: 2\nprometheus:\n  enabled: true\nextraArgs:\n  - --enable-certificate-owner-ref\nresources:\n  requests: {cpu: 10m, memory: 32Mi}\n",
		"external-secrets": "installCRDs: true\nreplicaCount: 2\nconcurrent: 2\nserviceMonitor:\n  enabled: false\nwebhook:\n  replicaCount: 1\n",
		"ingress-nginx":    "controller:\n  replicaCount: 2\n  config:\n    use-forwarded-headers: \"true\"\n  service:\n    annotations:\n      service.beta.kubernetes.io/aws-load-balancer-type: nlb\n  metrics:\n    enabled: true\n",
	}
	typos := map[string]string{
		"cert-manager":     "{}\n", // its values.schema.json refuses unknown keys itself
		"external-secrets": "concurent: 4\n",
		"ingress-nginx":    "controller:\n  replicaCont: 3\n",
	}
	for _, c := range testtool.CommunityCharts {
		files := map[string]string{}
		for p, data := range c.Files(t) {
			files["namespaces/"+c.Name+"/"+p] = data
		}
		files["namespaces/"+c.Name+"/common-values.yaml"] = documented[c.Name]
		files["clusters/c1/"+c.Name+"/c1-values.yaml"] = typos[c.Name]
		testtool.WriteFiles(t, root, files)
		cfg += "  " + c.Name + ": {tier: cluster}\n"
	}
	testtool.WriteFiles(t, root, map[string]string{"repotool.yaml": cfg})
	var got []string
	for _, f := range lintDir(t, root).Findings {
		if f.Rule == "values-unused" {
			got = append(got, f.File+": "+f.Message[strings.Index(f.Message, "did you mean"):])
		}
		if f.Rule == "render" {
			t.Errorf("%s: %s", f.File, f.Message)
		}
	}
	want := []string{
		"clusters/c1/external-secrets/c1-values.yaml: did you mean concurrent?",
		"clusters/c1/ingress-nginx/c1-values.yaml: did you mean controller.replicaCount?",
	}
	if !slices.Equal(got, want) {
		t.Errorf("values-unused findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
