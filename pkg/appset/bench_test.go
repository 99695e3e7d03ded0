package appset

import (
	"context"
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// BenchmarkExpand expands an ApplicationSet of 250 list elements in Go
// templates with a templatePatch, as gensynth -appsets writes them.
func BenchmarkExpand(b *testing.B) {
	var els strings.Builder
	for i := range 250 {
		fmt.Fprintf(&els, "          - {ns: ns-%d, files: [/apps/ns-%d/common-values.yaml, /envs/c/ns-%d/dev-values.yaml]}\n", i, i, i)
	}
	src := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n  goTemplate: true\n  generators:\n    - list:\n        elements:\n" +
		els.String() + "  template:\n    metadata:\n      name: '{{.ns}}'\n    spec:\n      project: default\n" +
		"      destination:\n        server: https://kubernetes.default.svc\n        namespace: '{{.ns}}'\n" +
		"      source:\n        repoURL: https://git.example/repo.git\n        path: 'apps/{{.ns}}'\n" +
		"  templatePatch: |\n    spec:\n      source:\n        helm:\n          valueFiles:\n" +
		"          {{- range .files }}\n            - {{ . }}\n          {{- end }}\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		b.Fatal(err)
	}
	env := testEnv(nil)
	for b.Loop() {
		res, err := Expand(context.Background(), doc.Content[0], env)
		if err != nil || len(res.Apps) != 250 {
			b.Fatal(err, len(res.Apps))
		}
	}
}
