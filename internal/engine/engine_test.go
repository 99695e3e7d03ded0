package engine

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	helmengine "helm.sh/helm/v3/pkg/engine"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// moreValues switch on templates the charts' defaults leave off.
var moreValues = map[string]map[string]any{
	"cert-manager": {"prometheus": map[string]any{"enabled": true, "servicemonitor": map[string]any{"enabled": true}},
		"webhook": map[string]any{"replicaCount": 2}, "podDisruptionBudget": map[string]any{"enabled": true}},
	"external-secrets": {"serviceMonitor": map[string]any{"enabled": true}, "podDisruptionBudget": map[string]any{"enabled": true},
		"webhook": map[string]any{"replicaCount": 2}},
	"ingress-nginx": {"controller": map[string]any{"metrics": map[string]any{"enabled": true}, "autoscaling": map[string]any{"enabled": true},
		"kind": "Both"}, "defaultBackend": map[string]any{"enabled": true}},
}

// TestCommunityCharts: real charts render as Helm's engine renders them,
// with their defaults and with values that switch more templates on.
func TestCommunityCharts(t *testing.T) {
	var e Engine
	for _, cc := range testtool.CommunityCharts {
		t.Run(cc.Name, func(t *testing.T) {
			c := community(t, cc.Name)
			for _, vals := range []map[string]any{{}, moreValues[cc.Name]} {
				if got := sameAsHelm(t, &e, c, vals); got.err != "" || len(got.out) < 5 {
					t.Fatalf("the chart did not render: %s", got)
				}
			}
		})
	}
}

// featureChart uses every part of the data templates see and the ways
// templates reach each other: subchart and library chart, defines
// replaced by the parent, include, tpl defining its own, .Files,
// .Template, .Subcharts, .Chart, .Capabilities, .Release, lookup and
// getHostByName, missing values and typeOf.
var featureChart = map[string]string{
	"Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndescription: the top chart\n" +
		"dependencies:\n  - name: sub\n    version: 1.0.0\n  - name: lib\n    version: 1.0.0\n  - name: unused\n    version: 1.0.0\n    condition: unused.enabled\n",
	"values.yaml": "name: app\nsub:\n  colour: blue\nunused:\n  enabled: false\n" +
		"inline: '{{ define \"inline\" }}inline-{{ .Values.name }}{{ end }}{{ include \"inline\" . }}/{{ include \"app.name\" . }}/{{ tpl \"{{ include \\\"inline\\\" . }}\" . }}'\n",
	"templates/_helpers.tpl": `{{- define "app.name" -}}{{ .Values.name }}-app{{- end -}}
{{- define "self" -}}{{ if gt (len .) 0 }}{{ include "self" (rest .) }}{{ end }}{{ len . }},{{- end -}}`,
	"templates/cm.yaml": `kind: ConfigMap
name: {{ include "app.name" . }}
lib: {{ include "lib.labels" . }}
sub: {{ include "sub.only" .Subcharts.sub }}
subValues: {{ .Subcharts.sub.Values | toJson }}
subChart: {{ .Subcharts.sub.Chart.Name }} root={{ .Subcharts.sub.Chart.IsRoot }}
template: {{ .Template.Name }} {{ .Template.BasePath }}
chart: {{ .Chart | toJson }}
types: {{ typeOf .Files }} {{ typeOf .Chart }} {{ typeOf .Values }} {{ typeOf .Template }} {{ typeOf . }}
release: {{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.IsInstall }}
kube: {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.APIVersions.Has "apps/v1" }}
inline: {{ tpl .Values.inline . }}
missing: [{{ .Values.nope }}] [{{ .Values.sub.nope }}] [{{ tpl "{{ .Values.nope }}" . }}]
lookup: {{ lookup "v1" "Secret" "ns" "name" | toJson }} host: [{{ getHostByName "example.com" }}]
nesting: {{ include "self" (list 1 2 3 4 5) }}
files: {{ .Files.Get "files/a.txt" | quote }} {{ .Files.GetBytes "files/a.txt" | len }} {{ .Files.Get "nope" | quote }}
lines: {{ .Files.Lines "files/a.txt" | toJson }} {{ .Files.Lines "nope" | toJson }}
glob: {{ range $path, $_ := .Files.Glob "files/*" }}{{ $path }} {{ end }}
config: {{ (.Files.Glob "files/*").AsConfig | toJson }}
secrets: {{ (.Files.Glob "files/**").AsSecrets | toJson }}
badGlob: {{ len (.Files.Glob "[") }}
index: {{ index .Files "files/b.conf" | toString }}
`,
	"templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
	"files/a.txt":         "alpha\nbeta\n",
	"files/b.conf":        "key = value",
	"files/deep/c.bin":    "\x00\x01",

	"charts/sub/Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
	"charts/sub/values.yaml": "colour: red\nsize: 1\n",
	"charts/sub/templates/_helpers.tpl": `{{- define "app.name" -}}replaced-by-the-parent{{- end -}}
{{- define "sub.only" -}}sub-{{ .Values.colour }}-{{ .Chart.Name }}{{- end -}}`,
	"charts/sub/templates/svc.yaml": "kind: Service\nname: {{ include \"app.name\" . }}\nport: {{ add .Values.size 8080 }}\n" +
		"template: {{ .Template.Name }} {{ .Template.BasePath }}\nparent: {{ .Values.global | toJson }} {{ .Chart.IsRoot }}\n",
	"charts/lib/Chart.yaml":             "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
	"charts/lib/templates/_lib.tpl":     `{{- define "lib.labels" -}}lib-{{ .Chart.Name }}{{- end -}}`,
	"charts/lib/templates/ignored.yaml": "kind: NeverRendered\n",
	"charts/unused/Chart.yaml":          "apiVersion: v2\nname: unused\nversion: 1.0.0\n",
	"charts/unused/templates/cm.yaml":   "kind: Disabled\n",
}

// TestFeatures: the feature chart renders as with Helm's engine, and the
// rendering holds what each feature prints (so that both engines failing
// alike, or printing nothing alike, cannot pass).
func TestFeatures(t *testing.T) {
	var e Engine
	got := sameAsHelm(t, &e, load(t, featureChart), map[string]any{"global": map[string]any{"g": 1}})
	if got.err != "" {
		t.Fatal(got.err)
	}
	cm := got.out["app/templates/cm.yaml"]
	for _, want := range []string{
		"name: app-app\n", "lib: lib-app\n", "sub: sub-blue-sub\n", "subChart: sub root=false\n",
		"template: app/templates/cm.yaml app/templates\n", "types: engine.files struct { chart.Metadata; IsRoot bool }",
		"release: rel ns true\n", "kube: v1.20.0 true\n", "inline: inline-app/app-app/inline-app\n",
		"missing: [] [] []\n", "lookup: {} host: []\n", "nesting: 0,1,2,3,4,5,\n",
		`files: "alpha\nbeta\n" 11 ""`, `lines: ["alpha","beta"] []`, "glob: files/a.txt files/b.conf \n",
		"badGlob: 3\n", "index: key = value\n",
	} {
		if !strings.Contains(cm, want) {
			t.Errorf("cm.yaml lacks %q:\n%s", want, cm)
		}
	}
	if svc := got.out["app/charts/sub/templates/svc.yaml"]; !strings.Contains(svc, "name: -app\nport: 8081\ntemplate: app/charts/sub/templates/svc.yaml app/charts/sub/templates\n") {
		t.Errorf("svc.yaml:\n%s", svc)
	}
	if _, ok := got.out["app/charts/unused/templates/cm.yaml"]; ok {
		t.Error("a subchart its condition turns off rendered")
	}
	for name := range got.out {
		if strings.Contains(name, "/lib/") || strings.Contains(name, "_helpers") {
			t.Errorf("%s rendered: a library chart's and partial templates are not", name)
		}
	}
}

// TestFailures: each way a rendering fails gives Helm's message, the
// second time from the parsed set kept from the first.
func TestFailures(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"fail":            {`{{ fail "on purpose" }}`, "execution error at (app/templates/t.yaml:1:3): on purpose"},
		"fail in include": {`{{ define "f" }}{{ fail "deep" }}{{ end }}a: {{ include "f" . }}`, "execution error at (app/templates/t.yaml:1:48): deep"},
		"fail in tpl":     {`{{ tpl "{{ fail \"in tpl\" }}" . }}`, "execution error at (app/templates/t.yaml:1:3): in tpl"},
		"required":        {`{{ required "x is required" .Values.x }}`, "execution error at (app/templates/t.yaml:1:3): x is required"},
		"required empty":  {`{{ required "e is required" .Values.empty }}`, "execution error at (app/templates/t.yaml:1:3): e is required"},
		"required zero":   {`{{ required "given" .Values.zero }}{{ required "given" .Values.list }}`, ""},
		"tpl parse":       {`{{ tpl "{{ if }}" . }}`, `cannot parse template "{{ if }}"`},
		"tpl exec":        {`{{ tpl "{{ index .Values.list 5 }}" . }}`, "error during tpl function execution"},
		"tpl scope":       {`{{ tpl "{{ define \"x\" }}1{{ end }}" . }}{{ include "x" . }}`, `no template "x" associated`},
		"exec":            {`{{ index .Values.list 5 }}`, "index out of range: 5"},
		"nil pointer":     {`{{ .Values.nope.deeper.still }}`, "nil pointer evaluating interface {}.deeper"},
		"recursion":       {`{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}`, "rendering template has a nested reference name: loop: unable to execute template"},
		"parse":           {`{{ if .Values.x }}`, "parse error at (app/templates/t.yaml:1): unexpected EOF"},
		"parse function":  {`{{ nosuchfunc }}`, `parse error at (app/templates/t.yaml:1): function "nosuchfunc" not defined`},
		"include missing": {`{{ include "missing" . }}`, `no template "missing" associated with template "gotpl"`},
		"panic":           {`{{ .Values.list.Foo }}`, "can't evaluate field Foo"},
		"env removed":     {`{{ env "HOME" }}`, `function "env" not defined`},
	} {
		t.Run(name, func(t *testing.T) {
			var e Engine
			c := oneTemplate(t, tc.text, map[string]string{"templates/ok.yaml": "kind: A\n", "templates/z.yaml": "kind: Z\n"})
			got := sameAsHelm(t, &e, c, map[string]any{"list": []any{1}, "empty": "", "zero": 0})
			if !strings.Contains(got.err, tc.want) || (tc.want == "") != (got.err == "") {
				t.Fatalf("Helm's message %q, want it to contain %q", got.err, tc.want)
			}
		})
	}
}

// TestParseOrder: of two templates that define one name, the one parsed
// last wins: the parent's over its subchart's, and at one depth the path
// that sorts first.
func TestParseOrder(t *testing.T) {
	var e Engine
	c := load(t, map[string]string{
		"Chart.yaml":                     "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"templates/a.yaml":               `{{ define "n" }}from-a{{ end }}used: {{ include "n" . }} {{ include "m" . }}`,
		"templates/b.yaml":               `{{ define "n" }}from-b{{ end }}`,
		"templates/sub/_c.tpl":           `{{ define "m" }}from-deeper{{ end }}`,
		"templates/_d.tpl":               `{{ define "m" }}from-d{{ end }}`,
		"charts/s/Chart.yaml":            "apiVersion: v2\nname: s\nversion: 1.0.0\n",
		"charts/s/templates/_s.tpl":      `{{ define "n" }}from-sub{{ end }}`,
		"charts/s/templates/s.yaml":      `s: {{ include "n" . }}`,
		"charts/s/charts/t/Chart.yaml":   "apiVersion: v2\nname: t\nversion: 1.0.0\n",
		"charts/s/charts/t/templates/t":  `{{ define "m" }}from-t{{ end }}`,
		"charts/s/charts/t/values.yaml":  "x: 1\n",
		"charts/s/charts/t/templates/u":  `u: {{ .Values.x }}`,
		"charts/s/charts/t/templates/_v": `{{ define "n" }}from-t{{ end }}`,
	})
	got := sameAsHelm(t, &e, c, map[string]any{})
	if a := got.out["app/templates/a.yaml"]; a != "used: from-a from-d" {
		t.Errorf("a.yaml: %q", a)
	}
}

// TestCache: renderings of the same templates share one parsed set,
// whatever the values; other contents under the same names get their
// own; the sets kept stay within CacheSize, least recently used out
// first, and a negative size keeps none.
func TestCache(t *testing.T) {
	render := func(e *Engine, text, v string) string {
		c := oneTemplate(t, text, nil)
		out, err := e.Render(c, topValues(t, c, map[string]any{"v": v}))
		if err != nil {
			t.Fatal(err)
		}
		return out["app/templates/t.yaml"]
	}
	var e Engine
	for i, tc := range []struct {
		text, v, want string
		kept          int
	}{
		{"a: {{ .Values.v }}", "1", "a: 1", 1},
		{"a: {{ .Values.v }}", "2", "a: 2", 1},
		{"b: {{ .Values.v }}", "3", "b: 3", 2},
		{"a: {{ .Values.v }}", "4", "a: 4", 2},
	} {
		if got := render(&e, tc.text, tc.v); got != tc.want {
			t.Errorf("%d: %q, want %q", i, got, tc.want)
		}
		if n := e.cache.order.Len(); n != tc.kept {
			t.Errorf("%d: %d sets kept, want %d", i, n, tc.kept)
		}
	}

	small := Engine{CacheSize: 100}
	for i := range 10 {
		render(&small, fmt.Sprintf("n: %d%040d", i, 0), "")
		if small.cache.bytes > small.CacheSize {
			t.Fatalf("%d bytes kept, more than %d", small.cache.bytes, small.CacheSize)
		}
	}
	if n := small.cache.order.Len(); n != 1 {
		t.Errorf("%d sets kept, want 1 (each is 57 bytes)", n)
	}
	none := Engine{CacheSize: -1}
	render(&none, "a: b", "")
	if none.cache.order.Len() != 0 {
		t.Error("a negative CacheSize kept a set")
	}
}

// TestCacheCollision: a set whose hash matches a kept one but whose
// templates differ is parsed on its own, never served the kept one.
func TestCacheCollision(t *testing.T) {
	var c parseCache
	a := newSet([]source{{name: "app/templates/t.yaml", text: []byte("a")}})
	b := newSet([]source{{name: "app/templates/t.yaml", text: []byte("b")}})
	b.hash = a.hash
	if got := c.lookup(a, 0); got != a {
		t.Fatal("the first set was not kept")
	}
	if got := c.lookup(b, 0); got != b {
		t.Fatal("a different set with the same hash got the kept one")
	}
	if got := c.lookup(newSet([]source{{name: "app/templates/t.yaml", text: []byte("a")}}), 0); got != a {
		t.Fatal("the same templates did not get the kept set")
	}
}

// TestConcurrent: renderings of one chart at once, each with its own
// values, from one parse (run with -race).
func TestConcurrent(t *testing.T) {
	var e Engine
	c := community(t, "ingress-nginx")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			cc := *c
			top := topValues(t, &cc, map[string]any{"controller": map[string]any{"replicaCount": i + 1}})
			out, err := e.Render(&cc, top)
			want := fmt.Sprintf("replicas: %d\n", i+1)
			if err != nil {
				errs[i] = err
			} else if d := out["ingress-nginx/templates/controller-deployment.yaml"]; !strings.Contains(d, want) {
				errs[i] = fmt.Errorf("rendering %d lacks %q", i, want)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := e.cache.order.Len(); n != 1 {
		t.Errorf("%d sets kept, want 1", n)
	}
}

// BenchmarkRender renders ingress-nginx with Helm's engine (every
// template parsed for every rendering) and with this one (parsed once).
// helm-memo-hit is the other design docs/render.md weighs: Helm's engine
// behind a cache of whole renderings, keyed by a hash of the templates
// and of everything the templates see; it is what a hit costs (a miss
// costs that and Helm's rendering).
func BenchmarkRender(b *testing.B) {
	c := community(b, "ingress-nginx")
	top := topValues(b, c, map[string]any{})
	b.Run("helm", func(b *testing.B) {
		for b.Loop() {
			if _, err := helmengine.Render(c, top); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("helm-memo-hit", func(b *testing.B) {
		memo := map[[32]byte]map[string]string{}
		key := func() [32]byte {
			h := sha256.New()
			for _, s := range sources(c, top) {
				h.Write([]byte(s.name))
				h.Write(s.text)
			}
			if err := json.NewEncoder(h).Encode(top); err != nil {
				b.Fatal(err)
			}
			return [32]byte(h.Sum(nil))
		}
		out, err := helmengine.Render(c, top)
		if err != nil {
			b.Fatal(err)
		}
		memo[key()] = out
		for b.Loop() {
			if _, ok := memo[key()]; !ok {
				b.Fatal("a miss")
			}
		}
	})
	b.Run("repotool", func(b *testing.B) {
		var e Engine
		for b.Loop() {
			if _, err := e.Render(c, top); err != nil {
				b.Fatal(err)
			}
		}
	})
}
