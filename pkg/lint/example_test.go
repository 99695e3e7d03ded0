package lint_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

// Lint a repository held in memory: a chart whose Ingress uses an API
// version the cluster no longer serves.
func ExampleLint() {
	fsys := fstest.MapFS{
		"repotool.yaml":                  {Data: []byte("clusters:\n  prod:\n    kubeVersion: v1.33.2\n")},
		"namespaces/shop/Chart.yaml":     {Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"clusters/prod/shop/values.yaml": {Data: []byte("host: shop.example.com\n")},
		"namespaces/shop/templates/ingress.yaml": {Data: []byte(`apiVersion: extensions/v1beta1
kind: Ingress
metadata:
  name: shop
spec:
  rules:
    - host: {{ .Values.host }}
`)},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := lint.Lint(context.Background(), repo, lint.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Findings {
		fmt.Printf("%s: %s [%s] %s\n", f.Location(), f.Severity, f.Rule, f.Message)
	}
	fmt.Println("exit code:", res.ExitCode(lint.SeverityError))
	// Output:
	// namespaces/shop/templates/ingress.yaml:1: error [stray-api-version] extensions/v1beta1 Ingress was removed in Kubernetes 1.22 and cluster prod runs v1.33.2: use networking.k8s.io/v1
	// exit code: 1
}
