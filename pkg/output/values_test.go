package output_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/values"
)

// sharedValues is the one input every values format's golden is made
// from: a chart default, a common and a cluster file, a secret file whose
// value (a placeholder here, as the renderer gives it) is never written,
// a list replaced, and a value no file sets.
func sharedValues(t *testing.T) *values.Effective {
	parse := func(s string) *yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		return n.Content[0]
	}
	return &values.Effective{
		Values: map[string]any{
			"image":       map[string]any{"repository": "shop", "tag": "2.0"},
			"tolerations": []any{map[string]any{"key": "spot"}},
			"db":          map[string]any{"password": "PLACEHOLDER-from-a-secret-file", "port": 5432},
			"global":      map[string]any{},
		},
		Trace: values.TraceLayers([]values.Layer{
			{File: "namespaces/shop/values.yaml", Doc: parse("image:\n  repository: shop\n  tag: \"1.0\"\ndb:\n  port: 5432\n")},
			{File: "namespaces/shop/common-values.yaml", Doc: parse("tolerations:\n  - key: dedicated\n")},
			{File: "namespaces/shop/common-values.secret.yaml", Secret: true, Doc: parse("db:\n  password: ENC[AES256_GCM,data:x]\nsops:\n  version: 3.9.0\n")},
			{File: "clusters/prod/shop/prod-values.yaml", Doc: parse("image:\n  tag: \"2.0\"\ntolerations:\n  - key: spot\n")},
		}),
	}
}

func TestValuesFormats(t *testing.T) {
	for _, name := range output.ValuesFormats() {
		f, err := output.NewValuesFormatter(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			suffix string
			opts   output.ValuesOptions
		}{
			{"", output.ValuesOptions{}},
			{"-origin", output.ValuesOptions{Origin: true}},
			{"-get", output.ValuesOptions{Path: []string{"db"}, Origin: true}},
		} {
			var b bytes.Buffer
			if err := f.Write(&b, sharedValues(t), tc.opts); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "PLACEHOLDER") {
				t.Errorf("%s%s: a secret file's value is written:\n%s", name, tc.suffix, b.String())
			}
			golden.Check(t, filepath.Join("testdata", "values"+tc.suffix+"."+name+".golden"), b.Bytes())
		}
		if err := f.Write(&bytes.Buffer{}, sharedValues(t), output.ValuesOptions{Path: []string{"image", "tag", "x"}}); err == nil {
			t.Errorf("%s: a path through a scalar was written", name)
		}
	}
	if _, err := output.NewValuesFormatter("toml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestCompareFormats: one comparison (values that differ, a secret on one
// side only, and two clusters' objects) in every compare format.
func TestCompareFormats(t *testing.T) {
	e := sharedValues(t)
	var devValues yaml.Node
	if err := yaml.Unmarshal([]byte("image:\n  repository: shop\n  tag: \"1.0\"\ndb:\n  port: 5432\ntolerations:\n  - key: dedicated\n"), &devValues); err != nil {
		t.Fatal(err)
	}
	other := &values.Effective{
		Values: map[string]any{"image": map[string]any{"repository": "shop", "tag": "1.0"}, "tolerations": []any{map[string]any{"key": "dedicated"}}, "db": map[string]any{"port": 5432}, "global": map[string]any{}},
		Trace:  values.TraceLayers([]values.Layer{{File: "namespaces/shop/values.yaml", Doc: devValues.Content[0]}}),
	}
	c := &change.Comparison{Namespace: "shop", Clusters: []string{"dev", "prod"}, Values: values.Compare([]*values.Effective{other, e}),
		Objects: &change.Result{Base: "dev/shop", Head: "prod/shop", Targets: []change.Target{{Name: "dev/shop -> prod/shop", Files: []string{}}},
			Changes: []change.Change{{Target: "dev/shop -> prod/shop", Object: "apps/v1/Deployment shop/web", Action: "changed", Diff: "--- base\n+++ head\n@@ -1 +1 @@\n-replicas: 1\n+replicas: 3\n"}}, ArgoCD: []change.Change{}}}
	for _, name := range output.CompareFormats() {
		f, err := output.NewCompareFormatter(name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := f.Write(&b, c, output.DiffOptions{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "PLACEHOLDER") {
			t.Errorf("%s: a secret file's value is written:\n%s", name, b.String())
		}
		golden.Check(t, filepath.Join("testdata", "compare."+name+".golden"), b.Bytes())
	}
}
