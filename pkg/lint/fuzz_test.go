package lint_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// FuzzCheck runs every rule over a repository whose plain manifest file and
// .sops.yaml hold arbitrary bytes: no input may make a rule panic, and the
// result must always encode.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\nstringData:\n  a: b\n"), []byte("creation_rules:\n  - path_regex: .*\\.yaml$\n"))
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b\nspec:\n  group: b\n  names: {plural: a, singular: a, kind: A, shortNames: [po]}\n"), []byte(""))
	f.Add([]byte("a: ENC[AES256_GCM,data:x,type:str]\nsops:\n  mac: ENC[x]\n  version: 3\n  encrypted_regex: '['\n"), []byte("creation_rules: [{path_regex: '['}]"))
	f.Add([]byte("# repotool:ignore-file plaintext-secret\n---\n- 1\n"), []byte("- not a map\n"))
	f.Fuzz(func(t *testing.T, manifest, sopsConfig []byte) {
		fsys := fstest.MapFS{
			"namespaces/app/Chart.yaml":     {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
			"clusters/c1/app/values-a.yaml": {Data: []byte("a: 1\n")},
			"bootstrap/manifest.yaml":       {Data: manifest},
			".sops.yaml":                    {Data: sopsConfig},
		}
		repo, err := layout.Load(context.Background(), fsys, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := lint.Check(repo, []*render.Result{}, lint.DefaultOptions())
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	})
}
