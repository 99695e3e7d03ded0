package render_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/values"
)

// TestEffectiveValues: the values EffectiveValues returns are exactly the
// .Values the templates see when the target renders (a template prints
// them), through a subchart with an alias, globals, a list replaced and a
// key deleted by null; and the trace names each one's file and line.
//
// As Helm 4, every document of a values file counts (the chart's own and
// the repository's), each key traced to its own document's line.
func TestEffectiveValues(t *testing.T) {
	for _, helm := range []string{render.HelmV3, render.HelmV4} {
		t.Run(helm, func(t *testing.T) { testEffectiveValues(t, helm) })
	}
}

func testEffectiveValues(t *testing.T, helm string) {
	files := map[string]string{
		"namespaces/app/Chart.yaml":            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../../libs/lib\n    alias: cache\n",
		"namespaces/app/values.yaml":           "replicas: 1\nenv: [A]\nresources:\n  cpu: 1\n  memory: 1Gi\nglobal:\n  region: eu\n",
		"namespaces/app/templates/values.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: values\ndata:\n  values: |\n{{ toYaml .Values | indent 4 }}\n",
		"libs/lib/Chart.yaml":                  "apiVersion: v2\nname: lib\nversion: 1.0.0\n",
		"libs/lib/values.yaml":                 "port: 6379\nsize: small\n",
		"namespaces/app/common-values.yaml":    "env: [B, C]\ncache:\n  size: large\n",
		"clusters/c1/app/c1-values.yaml":       "replicas: 3\nresources:\n  memory: null\n",
	}
	origins := map[string]string{
		"replicas":      "clusters/c1/app/c1-values.yaml:1",
		"env":           "namespaces/app/common-values.yaml:1",
		"cache.size":    "namespaces/app/common-values.yaml:3",
		"cache.port":    "libs/lib/values.yaml:1",
		"resources.cpu": "namespaces/app/values.yaml:4",
	}
	if helm == render.HelmV4 {
		files["namespaces/app/values.yaml"] += "---\nresources:\n  gpu: 0\n"
		files["clusters/c1/app/c1-values.yaml"] += "---\nresources:\n  cpu: 2\n"
		origins["resources.cpu"] = "clusters/c1/app/c1-values.yaml:6"
		origins["resources.gpu"] = "namespaces/app/values.yaml:10"
	}
	_, repo := writeRepo(t, files)
	tg, ok := repo.Target("c1", "app")
	if !ok {
		t.Fatalf("no target: %v", repo.Diagnostics)
	}
	opts := render.DefaultOptions()
	opts.Helm = helm
	r := render.New(repo, opts)
	res, err := r.Render(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	var cm struct{ Data struct{ Values string } }
	if err := yaml.Unmarshal(res.Manifest[strings.Index(string(res.Manifest), "apiVersion"):], &cm); err != nil {
		t.Fatal(err)
	}
	eff, err := r.EffectiveValues(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := yaml.Marshal(eff.Values)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != cm.Data.Values {
		t.Errorf("EffectiveValues:\n%s\nthe templates see:\n%s", got, cm.Data.Values)
	}
	for path, want := range origins {
		l := eff.Leaves(strings.Split(path, "."))
		if len(l) != 1 || l[0].Origin == nil {
			t.Errorf("%s: leaves %+v", path, l)
			continue
		}
		if got := fmt.Sprintf("%s:%d", l[0].Origin.From.File, l[0].Origin.From.Line); got != want {
			t.Errorf("%s comes from %s, want %s", path, got, want)
		}
	}
	if _, ok := eff.Get([]string{"resources", "memory"}); ok {
		t.Error("resources.memory, deleted by null, is still there")
	}
}

// TestWithout: rendering without a key the templates read changes the
// output; without one they do not read, it is byte-identical (the
// evidence the values-unused rule is to decide by); and Undeclared over
// EffectiveValues' Defaults finds the undeclared keys to try.
func TestWithout(t *testing.T) {
	root, repo := writeRepo(t, map[string]string{
		"namespaces/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/values.yaml":       "replicaCount: 1\nextra: {}\n",
		"namespaces/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: {{ .Values.replicaCount | quote }}\n  debug: {{ .Values.debug | default false | quote }}\n  extra: {{ toJson .Values.extra | quote }}\n",
		"clusters/c1/app/c1-values.yaml":   "replicaCount: 3\nreplicasCount: 4\ndebug: true\nextra:\n  a: 1\n",
	})
	tg, _ := repo.Target("c1", "app")
	r := render.New(repo, render.DefaultOptions())
	res, err := r.Render(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := r.EffectiveValues(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]*yaml3.Node{}
	for _, vf := range tg.Values {
		data, err := os.ReadFile(filepath.Join(root, vf.Path))
		if err != nil {
			t.Fatal(err)
		}
		var n yaml3.Node
		if err := yaml3.Unmarshal(data, &n); err != nil {
			t.Fatal(err)
		}
		docs[vf.Path] = n.Content[0]
	}
	var undeclared []string
	for _, c := range values.Undeclared(eff.Defaults, values.Layer{File: "clusters/c1/app/c1-values.yaml", Doc: docs["clusters/c1/app/c1-values.yaml"]}) {
		undeclared = append(undeclared, strings.Join(c.Path, ".")+"~"+c.Nearest)
	}
	if want := []string{"replicasCount~replicaCount", "debug~"}; !slices.Equal(undeclared, want) {
		t.Errorf("undeclared %v, want %v", undeclared, want)
	}
	for _, tc := range []struct {
		path []string
		same bool
	}{
		{[]string{"replicasCount"}, true},
		{[]string{"replicaCount"}, false},
		{[]string{"debug"}, false},
		{[]string{"extra", "a"}, false},
	} {
		without, err := r.Without(context.Background(), tg, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if same := bytes.Equal(without, res.Manifest); same != tc.same {
			t.Errorf("without %v: the same output %v, want %v", tc.path, same, tc.same)
		}
	}
}

// TestTemplatesMention: a key counts as named where templates read keys
// (after a dot, or quoted), not where the word is only text.
func TestTemplatesMention(t *testing.T) {
	_, repo := writeRepo(t, map[string]string{
		"namespaces/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  tag: {{ .Values.image.tag | quote }}\n  extra: {{ index .Values \"extra-key\" | quote }}\n  # rules: [secrets]\n",
		"clusters/c1/app/c1-values.yaml":   "{}\n",
	})
	r := render.New(repo, render.DefaultOptions())
	for word, want := range map[string]bool{"tag": true, "image": true, "extra-key": true, "secrets": false, "ta": false, "tags": false} {
		got, err := r.TemplatesMention(context.Background(), "namespaces/app", word)
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", word, got, err, want)
		}
	}
}

// writeRepo writes files into a new folder and loads it as a repository.
func writeRepo(t *testing.T, files map[string]string) (string, *layout.Repo) {
	t.Helper()
	root := t.TempDir()
	testtool.WriteFiles(t, root, files)
	repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return root, repo
}
