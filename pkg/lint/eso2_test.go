package lint_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestESO2Semantics lints ESO's own documentation examples against ESO
// 2.9's own CRDs (../shared/eso; ESO 2 is not a Go module the proxy
// serves): an ExternalSecret whose spec.target.manifest makes a ConfigMap
// or an Argo CD Application writes no Secret (a reference to its target
// name is unprovided; a rendered Secret of that name is no conflict), and
// one with creationPolicy CreateOrMerge (ESO 2.8) provides its Secret
// without fighting over it.
func TestESO2Semantics(t *testing.T) {
	dir := testtool.Shared(t, "eso")
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		// The documentation site's {% raw %} markers, and the example
		// namespace: the chart's namespace holds them.
		return regexp.MustCompile(`(?m)^\{% (end)?raw %\}|^  namespace: example\n`).ReplaceAllString(string(data), "")
	}
	chart := "apiVersion: v2\nname: x\nversion: 1.0.0\n"
	files := map[string]string{
		"repotool.yaml":                        "namespaces:\n  eso: {tier: cluster}\nclusters:\n  c1: {kubeVersion: v1.33.0}\n",
		"namespaces/eso/Chart.yaml":            chart,
		"clusters/c1/eso/c1-values.yaml":       "{}\n",
		"namespaces/shop/Chart.yaml":           chart,
		"clusters/c1/shop/c1-values.yaml":      "{}\n",
		"namespaces/shop/templates/store.yaml": read("snippets/vault-approle-store.yaml"),
		// ESO's examples: targets made a ConfigMap (app-config) and an
		// Argo CD Application (my-application).
		"namespaces/shop/templates/configmap.yaml":   read("snippets/manifest-basic-configmap.yaml"),
		"namespaces/shop/templates/application.yaml": read("snippets/manifest-argocd-app.yaml"),
		"namespaces/shop/templates/app.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: app-config
type: Opaque
---
apiVersion: v1
kind: Secret
metadata:
  name: my-secret
type: Opaque
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  refreshInterval: 1h0m0s
  secretStoreRef: {name: vault-backend, kind: SecretStore}
  target:
    name: shop-db
    creationPolicy: CreateOrMerge
  dataFrom:
    - extract: {key: shop/db}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db-extra
spec:
  refreshInterval: 1h0m0s
  secretStoreRef: {name: vault-backend, kind: SecretStore}
  target:
    name: app-config
    creationPolicy: CreateOrMerge
  dataFrom:
    - extract: {key: shop/extra}
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
            - secretRef: {name: app-config}
            - secretRef: {name: my-application}
`,
	}
	for _, crd := range []string{"external-secrets.io_externalsecrets.yaml", "external-secrets.io_secretstores.yaml"} {
		files["namespaces/eso/crds/"+crd] = read("crds/" + crd)
	}
	root := t.TempDir()
	testtool.WriteFiles(t, root, files)
	res := lintDir(t, root)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+": "+f.Message)
	}
	want := []string{"secret-reference: Deployment shop/web refers to Secret shop/my-application (envFrom), but nothing in cluster c1 provides it"}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
