package appset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// testEnv is a repository of files and a central Argo CD with two
// labelled cluster Secrets besides the cluster it runs in.
func testEnv(files map[string]string) Env {
	return Env{
		Paths: func() ([]string, error) { return slices.Sorted(mapKeys(files)), nil },
		Read: func(p string) ([]byte, error) {
			if d, ok := files[p]; ok {
				return []byte(d), nil
			}
			return nil, fs.ErrNotExist
		},
		OwnRepo: func(u string) string {
			if u != "https://git.example/repo.git" {
				return "another repository"
			}
			return ""
		},
		Clusters: []Cluster{
			{Name: "us", Server: "https://us:6443", Labels: map[string]string{"env": "prod", "region": "us"}, Secret: true},
			{Name: "eu", Server: "https://eu:6443", Labels: map[string]string{"env": "prod", "region": "eu"}, Annotations: map[string]string{"team": "a"}, Secret: true},
		},
	}
}

func mapKeys(m map[string]string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// expand expands spec (the ApplicationSet's spec, indented by two) and
// returns each Application as "name field", field being what at says.
func expand(t *testing.T, spec string, files map[string]string, at ...string) ([]string, error) {
	t.Helper()
	var doc yaml.Node
	src := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n" + spec
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	res, err := Expand(context.Background(), doc.Content[0], testEnv(files))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, app := range res.Apps {
		var a struct {
			Metadata struct {
				Name   string
				Labels map[string]string
			}
			Spec struct {
				Destination struct{ Name, Server, Namespace string }
				Source      struct{ Path string }
				SyncPolicy  map[string]any `yaml:"syncPolicy"`
				Project     string
			}
		}
		if err := app.Doc.Decode(&a); err != nil {
			t.Fatal(err)
		}
		s := a.Metadata.Name
		for _, f := range at {
			switch f {
			case "dest":
				s += " " + a.Spec.Destination.Name + a.Spec.Destination.Server
			case "ns":
				s += " " + a.Spec.Destination.Namespace
			case "path":
				s += " " + a.Spec.Source.Path
			case "labels":
				s += fmt.Sprintf(" %v", a.Metadata.Labels)
			case "sync":
				s += fmt.Sprintf(" %v", a.Spec.SyncPolicy)
			case "project":
				s += " " + a.Spec.Project
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func TestExpand(t *testing.T) {
	const tmpl = "  template:\n    metadata:\n      name: %q\n    spec:\n      project: p\n      destination: {name: %q, namespace: %q}\n      source: {path: %q}\n"
	tpl := func(name, dest, ns, path string) string { return fmt.Sprintf(tmpl, name, dest, ns, path) }
	files := map[string]string{
		"apps/a/config.yaml":      "name: a\nreplicas: 1000000\nnested: {k: v}\n",
		"apps/b/config.yaml":      "- name: b1\n  replicas: 2\n- name: b2\n  replicas: 3\n",
		"apps/b/deep/config.yaml": "name: deep\n",
		"apps/c/other.txt":        "",
		".hidden/x/config.yaml":   "name: hidden\n",
	}
	tests := []struct {
		name, spec string
		at         []string
		want       []string
	}{
		{"list, default syntax", "  generators:\n    - list:\n        elements:\n          - {app: one, cluster: us}\n          - {app: two, cluster: eu, values: {ns: x}}\n" +
			tpl("{{app}}-{{ cluster }}", "{{cluster}}", "{{values.ns}}", "{{missing}}"), []string{"dest", "ns", "path"},
			[]string{"one-us us {{values.ns}} {{missing}}", "two-eu eu x {{missing}}"}},
		{"list, go template, numbers as Argo CD prints them", "  goTemplate: true\n  generators:\n    - list:\n        elements:\n          - {app: one, num: 1000000, f: 1.5}\n" +
			tpl("{{.app}}", "{{.num}}", "{{.f}}", "{{.missing}}"), []string{"dest", "ns", "path"},
			[]string{"one 1e+06 1.5 <no value>"}},
		{"elementsYaml", "  goTemplate: true\n  generators:\n    - list:\n        elementsYaml: |\n          - app: y1\n          - app: y2\n" +
			tpl("{{.app}}", "d", "n", "p"), nil, []string{"y1", "y2"}},
		{"an empty element renders nothing", "  generators:\n    - list:\n        elements:\n          - {}\n" + tpl("raw-{{x}}", "d", "n", "p"), nil,
			[]string{"raw-{{x}}"}},
		{"clusters: Secrets and the in-cluster one", "  generators:\n    - clusters: {}\n" +
			tpl("c-{{nameNormalized}}", "{{name}}", "{{metadata.labels.region}}", "{{server}}"), []string{"dest", "ns", "path"},
			[]string{"c-eu eu eu https://eu:6443", "c-us us us https://us:6443", "c-in-cluster in-cluster {{metadata.labels.region}} https://kubernetes.default.svc"}},
		{"clusters with a selector leave the in-cluster one out", "  goTemplate: true\n  generators:\n    - clusters:\n        selector:\n          matchExpressions:\n" +
			"            - {key: region, operator: In, values: [eu]}\n        values: {tier: '{{.name}}-gold'}\n" +
			tpl("c-{{.name}}", "{{.values.tier}}", "{{index .metadata.labels \"argocd.argoproj.io/secret-type\"}}", "{{.metadata.annotations.team}}"),
			[]string{"dest", "ns", "path"}, []string{"c-eu eu-gold cluster a"}},
		{"clusters flatList", "  goTemplate: true\n  generators:\n    - clusters: {flatList: true}\n" +
			tpl("all", "{{range .clusters}}{{.name}},{{end}}", "n", "p"), []string{"dest"}, []string{"all eu,us,in-cluster,"}},
		{"git files: * crosses folders, as git ls-files", "  generators:\n    - git:\n        repoURL: https://git.example/repo.git\n        files:\n" +
			"          - path: apps/*/config.yaml\n" + tpl("f-{{name}}", "{{path.basename}}", "{{replicas}}", "{{path}}/{{path[1]}}/{{path.filename}}"),
			[]string{"dest", "ns", "path"}, []string{"f-a a 1e+06 apps/a/a/config.yaml", "f-b1 b 2 apps/b/b/config.yaml", "f-b2 b 3 apps/b/b/config.yaml",
				"f-deep deep {{replicas}} apps/b/deep/b/config.yaml"}},
		{"git files: exclude, path prefix, go template", "  goTemplate: true\n  generators:\n    - git:\n        repoURL: https://git.example/repo.git\n" +
			"        pathParamPrefix: p\n        files:\n          - path: apps/**\n          - path: apps/b/**\n            exclude: true\n" +
			tpl("{{.name}}", "{{.nested.k}}", "{{index .p.path.segments 1}}", "{{.p.path.path}}"),
			[]string{"dest", "ns", "path"}, []string{"a v a apps/a", "<no value> <no value> c apps/c"}},
		{"git files in a hidden folder, as git ls-files lists them", "  generators:\n    - git:\n        repoURL: https://git.example/repo.git\n" +
			"        files: [{path: '*/x/config.yaml'}]\n" + tpl("{{name}}", "d", "n", "{{path}}"), []string{"path"}, []string{"hidden .hidden/x"}},
		{"git directories leave hidden ones out", "  generators:\n    - git:\n        repoURL: https://git.example/repo.git\n" +
			"        directories: [{path: '*'}]\n" + tpl("d-{{path.basenameNormalized}}", "d", "n", "{{path}}"), []string{"path"}, []string{"d-apps apps"}},
		{"git directories", "  generators:\n    - git:\n        repoURL: https://git.example/repo.git\n        directories:\n          - path: apps/*\n" +
			"          - path: apps/c\n            exclude: true\n" + tpl("d-{{path.basenameNormalized}}", "{{path[0]}}", "n", "{{path}}"),
			[]string{"dest", "path"}, []string{"d-a apps apps/a", "d-b apps apps/b"}},
		{"matrix: the second generator reads the first's parameters", "  goTemplate: true\n  generators:\n    - matrix:\n        generators:\n" +
			"          - list: {elements: [{dir: a}, {dir: b}]}\n          - git:\n              repoURL: https://git.example/repo.git\n" +
			"              files: [{path: 'apps/{{.dir}}/config.yaml'}]\n" + tpl("{{.name}}-{{.dir}}", "d", "n", "p"), nil,
			[]string{"a-a", "b1-b", "b2-b"}},
		{"matrix of clusters and a list, default syntax", "  generators:\n    - matrix:\n        generators:\n          - clusters: {selector: {matchLabels: {env: prod}}}\n" +
			"          - list: {elements: [{app: x}, {app: why}]}\n" + tpl("{{app}}-{{name}}", "{{name}}", "n", "p"), nil,
			[]string{"x-eu", "why-eu", "x-us", "why-us"}},
		{"merge by key", "  generators:\n    - merge:\n        mergeKeys: [name]\n        generators:\n          - clusters: {values: {size: small}}\n" +
			"          - list: {elements: [{name: eu, values: {size: large}}, {name: nowhere}]}\n" + tpl("m-{{name}}", "{{values.size}}", "n", "p"),
			[]string{"dest"}, []string{"m-eu large", "m-us small", "m-in-cluster small"}},
		{"generator selector", "  generators:\n    - list:\n        elements: [{app: x, tier: a}, {app: why, tier: b}]\n      selector: {matchLabels: {tier: b}}\n" +
			tpl("{{app}}", "d", "n", "p"), nil, []string{"why"}},
		{"templatePatch, rendered then merged; project kept", "  goTemplate: true\n  generators:\n    - list: {elements: [{app: x, auto: true}, {app: why}]}\n" +
			tpl("{{.app}}", "d", "n", "p") + "  templatePatch: |\n    {{- if .auto }}\n    metadata: {labels: {auto: \"yes\"}}\n    spec:\n      project: other\n" +
			"      syncPolicy: {automated: {prune: true}}\n    {{- end }}\n", []string{"labels", "sync", "project"},
			[]string{"x map[auto:yes] map[automated:map[prune:true]] p", "why map[] map[] p"}},
		{"a generator's own template over spec.template; a matrix child's is not read", "  generators:\n    - list:\n        elements: [{app: x}]\n" +
			"        template: {metadata: {name: 'own-{{app}}', labels: {a: '1'}}, spec: {destination: {namespace: '', name: ''}, project: ''}}\n" +
			"    - matrix:\n        generators:\n          - list:\n              elements: [{app: z}]\n              template: {metadata: {name: ignored}}\n" +
			"          - list: {elements: [{b: c}]}\n" +
			"  template:\n    metadata: {name: '{{app}}', labels: {a: base, b: base}}\n    spec: {project: p, destination: {name: dest, namespace: ns}}\n",
			[]string{"labels", "dest", "project"}, []string{"own-x map[a:1 b:base] dest p", "z map[a:base b:base] dest p"}},
		{"normalize, slugify, toYaml, tpl", "  goTemplate: true\n  generators:\n    - list: {elements: [{app: 'My App_1!'}]}\n" +
			tpl("{{normalize .app}}", "{{slugify 5 false .app}}", "{{ toYaml (dict \"a\" 1) }}", "{{ tpl \"{{.app}}\" . }}"), []string{"dest", "ns", "path"},
			[]string{"my-app-1 my-ap a: 1 My App_1!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := expand(t, tt.spec, files, tt.at...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	const tmpl = "  template:\n    metadata: {name: x}\n    spec: {project: p}\n"
	tests := []struct {
		name, spec  string
		line        int
		unsupported bool
		msg         string
	}{
		{"no generators", "  generators: []\n" + tmpl, 6, false, "no generators"},
		{"no template", "  generators: [{list: {elements: [{}]}}]\n", 6, false, "no template"},
		{"unknown spec field", "  generators: [{list: {elements: [{}]}}]\n  foo: 1\n" + tmpl, 7, false, "spec.foo"},
		{"unknown generator", "  generators:\n    - lists: {}\n" + tmpl, 7, false, "not a generator"},
		{"two kinds", "  generators:\n    - list: {elements: []}\n      git: {}\n" + tmpl, 8, false, "has list too"},
		{"pull requests", "  generators:\n    - pullRequest: {}\n" + tmpl, 7, true, "pullRequest generator"},
		{"plugin in a matrix", "  generators:\n    - matrix:\n        generators:\n          - list: {elements: [{a: b}]}\n          - plugin: {}\n" + tmpl, 10, true,
			"plugin generator calls a plugin"},
		{"another repository", "  generators:\n    - git:\n        repoURL: https://other/x.git\n        files: [{path: x}]\n" + tmpl, 8, true, "another repository"},
		{"matrix of one", "  generators:\n    - matrix:\n        generators:\n          - list: {elements: [{a: b}]}\n" + tmpl, 8, false, "two generators"},
		{"matrix too deep", "  generators:\n    - matrix:\n        generators:\n          - matrix:\n              generators:\n                - matrix: {generators: []}\n" +
			"                - list: {elements: []}\n          - list: {elements: []}\n" + tmpl, 11, false, "nested this deep"},
		{"merge of equal keys", "  generators:\n    - merge:\n        mergeKeys: [a]\n        generators:\n          - list: {elements: [{a: x}, {a: x}]}\n" +
			"          - list: {elements: []}\n" + tmpl, 10, false, "not unique"},
		{"matrix keys that differ", "  generators:\n    - matrix:\n        generators:\n          - list: {elements: [{a: x}]}\n          - list: {elements: [{a: z}]}\n" +
			tmpl, 8, false, "duplicate key a"},
		{"a number in the default syntax", "  generators:\n    - list: {elements: [{a: 1}]}\n" + tmpl, 7, false, "not a string"},
		{"a template that fails", "  goTemplate: true\n  generators:\n    - list: {elements: [{a: x}]}\n  template:\n    metadata: {name: '{{fail \"no\"}}'}\n",
			10, false, "no"},
		{"missingkey=error", "  goTemplate: true\n  goTemplateOptions: [missingkey=error]\n  generators:\n    - list: {elements: [{a: x}]}\n" +
			"  template:\n    metadata: {name: '{{.b}}'}\n", 11, false, "no entry for key"},
		{"a bad option", "  goTemplate: true\n  goTemplateOptions: [bogus]\n  generators:\n    - list: {elements: [{a: x}]}\n" +
			"  template:\n    metadata: {name: '{{.a}}'}\n", 11, false, "bogus"},
		{"an unclosed tag", "  generators:\n    - list: {elements: [{a: x}]}\n  template:\n    metadata: {name: '{{a}} {{b'}\n", 9, false, "cannot find end tag"},
		{"env is not there", "  goTemplate: true\n  generators:\n    - list: {elements: [{a: x}]}\n  template:\n    metadata: {name: '{{env \"HOME\"}}'}\n",
			10, false, "function \"env\" not defined"},
		{"a patch directive", "  generators: [{list: {elements: [{a: x}]}}]\n" + tmpl + "  templatePatch: |\n    metadata:\n      $patch: replace\n", 12, false, "directive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := expand(t, tt.spec, nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want an Error, got %v", err)
			}
			if e.Line != tt.line || e.Unsupported != tt.unsupported || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got line %d unsupported %v %q; want line %d unsupported %v %q", e.Line, e.Unsupported, e.Msg, tt.line, tt.unsupported, tt.msg)
			}
		})
	}
}

func TestPathspec(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"apps/*/config.yaml", "apps/a/config.yaml", true},
		{"apps/*/config.yaml", "apps/a/b/config.yaml", true}, // '*' crosses '/'
		{"apps/*.yaml", "apps/a/b.yaml", true},
		{"apps/?/c", "apps/a/c", true},
		{"apps/[ab]/c", "apps/b/c", true},
		{"apps/[!ab]/c", "apps/b/c", false},
		{"apps/[a-c]/c", "apps/d/c", false},
		{"apps/[[:digit:]]/c", "apps/1/c", true},
		{"apps", "apps/a/c", true}, // a folder: the files below it
		{"apps/", "apps/a/c", true},
		{"app", "apps/a/c", false},
		{"apps/a/c", "apps/a/c", true},
		{`apps/\*`, "apps/*", true},
		{`apps/\*`, "apps/a", false},
		{"apps/[a", "apps/[a", false},
		{"*", "x/y", true},
	}
	for _, tt := range tests {
		if got := pathspecMatch(tt.pattern, tt.path); got != tt.want {
			t.Errorf("pathspecMatch(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestInputs: an Application's inputs are the files its own parameters
// come from, and for a merge the folders whose new files could merge in.
func TestInputs(t *testing.T) {
	files := map[string]string{"apps/a/c.yaml": "k: a\n", "apps/b/c.yaml": "k: b\n", "extra/a.yaml": "k: a\nx: 1\n"}
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"git files in a matrix", "  generators:\n    - matrix:\n        generators:\n          - git: {repoURL: https://git.example/repo.git, files: [{path: apps/*/c.yaml}]}\n" +
			"          - list: {elements: [{e: x}]}\n  template: {metadata: {name: '{{k}}'}}\n", []string{"a [apps/a/c.yaml]", "b [apps/b/c.yaml]"}},
		{"a merge", "  generators:\n    - merge:\n        mergeKeys: [k]\n        generators:\n          - git: {repoURL: https://git.example/repo.git, files: [{path: apps/*/c.yaml}]}\n" +
			"          - git: {repoURL: https://git.example/repo.git, files: [{path: extra/*.yaml}]}\n  template: {metadata: {name: '{{k}}'}}\n",
			[]string{"a [apps apps/a/c.yaml extra extra/a.yaml]", "b [apps apps/b/c.yaml extra]"}},
		{"a list", "  generators: [{list: {elements: [{k: l}]}}]\n  template: {metadata: {name: '{{k}}'}}\n", []string{"l []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte("kind: ApplicationSet\nspec:\n"+tt.spec), &doc); err != nil {
				t.Fatal(err)
			}
			res, err := Expand(context.Background(), doc.Content[0], testEnv(files))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range res.Apps {
				var m struct{ Metadata struct{ Name string } }
				if err := a.Doc.Decode(&m); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%s %v", m.Metadata.Name, a.Inputs))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
