package render_test

import (
	"reflect"

	"bytes"
	"context"
	"maps"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// The renderer runs Helm's template engine with each chart's templates
// parsed once per run (internal/engine) and sorts the rendered
// documents itself, parsing each once. These tests render the same charts
// with several values in one Renderer (so later targets use the parsed
// templates of earlier ones) and require, for every target, the bytes
// `helm template` prints or the message it fails with.

// engineChart exercises the engine: defines overridden across charts, a
// library chart, include, tpl (defining and including templates), .Files,
// .Template, .Subcharts, .Capabilities, lookup and getHostByName (both
// empty in `helm template`), missing values, NOTES.txt, hooks, CRDs, and
// failures from fail, required, tpl, execution and include recursion.
var engineChart = map[string]string{
	"Chart.yaml": `apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - name: sub
    version: 1.0.0
    condition: sub.enabled
  - name: lib
    version: 1.0.0
`,
	"values.yaml": `name: app
sub:
  enabled: true
  colour: blue
list: [a, b]
tplString: '{{ define "inline" }}inline-{{ .Values.name }}{{ end }}{{ include "inline" . }}/{{ include "app.name" . }}'
`,
	"templates/_helpers.tpl": `{{- define "app.name" -}}{{ .Values.name }}-from-app{{- end -}}
{{- define "loop" -}}{{ include "loop" . }}{{- end -}}
`,
	"templates/NOTES.txt":    "Installed {{ .Release.Name }}.\n",
	"files/a.txt":            "alpha\nbeta\n",
	"files/b.conf":           "key = value\n",
	"crds/widgets.yaml":      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
	"charts/sub/Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
	"charts/sub/values.yaml": "colour: red\nsize: 1\n",
	"charts/sub/templates/_helpers.tpl": `{{- define "app.name" -}}overridden-by-the-parent{{- end -}}
{{- define "sub.only" -}}sub-{{ .Values.colour }}{{- end -}}
`,
	"charts/sub/templates/svc.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ include "sub.only" . }}
  labels:
    template: {{ .Template.Name | quote }}
    base: {{ .Template.BasePath | quote }}
spec:
  ports:
    - port: {{ add .Values.size 8080 }}
`,
	"charts/lib/Chart.yaml":             "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
	"charts/lib/templates/_lib.tpl":     `{{- define "lib.labels" -}}lib: {{ .Chart.Name }}{{- end -}}`,
	"charts/lib/templates/ignored.yaml": "kind: NeverRendered\n",
	"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "app.name" . }}
  labels:
    {{- include "lib.labels" . | nindent 4 }}
  annotations:
    template: {{ .Template.Name }}
data:
  tpl: {{ tpl .Values.tplString . | quote }}
  file: {{ .Files.Get "files/a.txt" | quote }}
  lines: {{ .Files.Lines "files/a.txt" | toJson | quote }}
  missing: "{{ .Values.nope }}"
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  release: {{ printf "%s/%s/%v" .Release.Name .Release.Namespace .Release.IsInstall | quote }}
{{- with .Subcharts.sub }}
  sub: {{ .Values.colour | quote }}
{{- end }}
  lookup: {{ lookup "v1" "Secret" "ns" "x" | toJson | quote }}
  host: {{ getHostByName "example.com" | quote }}
  yaml: {{ .Values.list | toYaml | fromYamlArray | toJson | quote }}
{{- if .Values.failMe }}
  fail: {{ fail "failing on purpose" }}
{{- end }}
{{- if .Values.requireMe }}
  required: {{ required "x is required" .Values.x }}
{{- end }}
{{- if .Values.badTpl }}
  badTpl: {{ tpl "{{ if }}" . }}
{{- end }}
{{- if .Values.badIndex }}
  badIndex: {{ index .Values.list 5 }}
{{- end }}
{{- if .Values.recurse }}
  recurse: {{ include "loop" . }}
{{- end }}
---
{{ (.Files.Glob "files/*").AsConfig | nindent 0 }}
`,
	"templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: hook
  annotations:
    helm.sh/hook: pre-install
spec: {}
`,
}

// helmCLI is a helm CLI and the Options.Helm the renderer matches it with.
type helmCLI struct {
	path    string
	version string
}

// bothHelms are helm 3 and helm 4, built from the versions go.mod pins.
func bothHelms(t *testing.T) []helmCLI {
	return []helmCLI{{testtool.Helm(t), render.HelmV3}, {testtool.Helm4(t), render.HelmV4}}
}

func TestEngineParity(t *testing.T) {
	for _, h := range bothHelms(t) {
		t.Run(h.version, func(t *testing.T) { testEngineParity(t, h) })
	}
}

func testEngineParity(t *testing.T, helm helmCLI) {
	values := map[string]string{
		"defaults":     "{}\n",
		"other":        "name: other\nsub:\n  colour: green\n",
		"no-sub":       "sub:\n  enabled: false\n",
		"fail":         "failMe: true\n",
		"required":     "requireMe: true\n",
		"required-set": "requireMe: true\nx: set\n",
		"bad-tpl":      "badTpl: true\n",
		"bad-index":    "badIndex: true\n",
		"recursion":    "recurse: true\n",
		"defaults-2":   "{}\n",
	}
	results := compareWithHelm(t, helm, engineChart, values)
	for cluster, want := range map[string][]string{
		"defaults": {`tpl: "inline-app/app-from-app"`, "lib: app", `sub: "blue"`, "name: sub-blue", `template: "app/charts/sub/templates/svc.yaml"`,
			`lines: "[\"alpha\",\"beta\"]"`, `missing: ""`, `host: ""`, "kind: CustomResourceDefinition", "a.txt: |\n  alpha", "helm.sh/hook: pre-install"},
		"other":  {`tpl: "inline-other/other-from-app"`, "name: sub-green"},
		"no-sub": {"name: app-from-app"},
	} {
		res := results[cluster]
		if res.Err != nil {
			t.Fatalf("%s: %v", cluster, res.Err)
		}
		for _, w := range want {
			if !bytes.Contains(res.Manifest, []byte(w)) {
				t.Errorf("%s: the rendering lacks %q:\n%s", cluster, w, res.Manifest)
			}
		}
	}
	if bytes.Contains(results["no-sub"].Manifest, []byte("kind: Service")) {
		t.Error("no-sub: the disabled subchart rendered")
	}
	for _, c := range []string{"fail", "required", "bad-tpl", "bad-index", "recursion"} {
		if results[c].Err == nil {
			t.Errorf("%s: rendered", c)
		}
	}
}

// TestEngineParseErrorParity: a template that does not parse fails every
// target of its chart with Helm's message, from the first target on and
// for the later ones that meet the parse kept from it.
func TestEngineParseErrorParity(t *testing.T) {
	chart := map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"templates/ok.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
		"templates/bad.yaml": "{{ if .Values.x }}\nkind: A\n",
		"templates/_x.tpl":   "{{ define \"x\" }}x{{ end }}\n",
	}
	for _, h := range bothHelms(t) {
		t.Run(h.version, func(t *testing.T) { compareWithHelm(t, h, chart, map[string]string{"a": "{}\n", "b": "x: 1\n"}) })
	}
}

// TestCommunityChartParity renders real community charts (from the Go
// modules internal/corpus pins) with their defaults and with values that
// switch on more of their templates, one Renderer for all: every target is
// what `helm template` prints.
func TestCommunityChartParity(t *testing.T) {
	if testing.Short() {
		t.Skip("renders three real charts with the helm CLI")
	}
	values := map[string]map[string]string{
		"cert-manager": {
			"defaults": "{}\n",
			"more":     "crds:\n  enabled: true\nreplicaCount: 2\nprometheus:\n  servicemonitor:\n    enabled: true\npodDisruptionBudget:\n  enabled: true\nwebhook:\n  replicaCount: 2\n",
		},
		"external-secrets": {
			"defaults": "{}\n",
			"more":     "serviceMonitor:\n  enabled: true\nwebhook:\n  create: false\ncertController:\n  create: false\nreplicaCount: 3\npodDisruptionBudget:\n  enabled: true\n",
		},
		"ingress-nginx": {
			"defaults": "{}\n",
			"more":     "controller:\n  kind: DaemonSet\n  metrics:\n    enabled: true\n    serviceMonitor:\n      enabled: true\n  admissionWebhooks:\n    enabled: false\n  autoscaling:\n    enabled: true\ndefaultBackend:\n  enabled: true\ntcp:\n  \"9000\": default/svc:9000\n",
		},
	}
	for _, h := range bothHelms(t) {
		for _, c := range testtool.CommunityCharts {
			t.Run(h.version+"/"+c.Name, func(t *testing.T) {
				if values[c.Name] == nil {
					t.Fatalf("no values for %s", c.Name)
				}
				compareWithHelm(t, h, c.Files(t), values[c.Name])
			})
		}
	}
}

// compareWithHelm writes chart as namespace app with one cluster per
// values (named by the map's keys), renders every target with one
// Renderer and compares each with `helm template`: the same bytes, or the
// same message. It returns the results by cluster.
func compareWithHelm(t *testing.T, helm helmCLI, chart, values map[string]string, repoFiles ...map[string]string) map[string]*render.Result {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{}
	for _, extra := range repoFiles {
		maps.Copy(files, extra)
	}
	for p, data := range chart {
		files["namespaces/app/"+p] = data
	}
	for cluster, v := range values {
		files["clusters/"+cluster+"/app/"+cluster+"-values.yaml"] = v
	}
	testtool.WriteFiles(t, root, files)
	repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.Targets) != len(values) {
		t.Fatalf("%d targets, want %d: %v", len(repo.Targets), len(values), repo.Diagnostics)
	}
	opts := render.DefaultOptions()
	opts.Helm = helm.version
	results := render.New(repo, opts).RenderAll(context.Background(), repo.Targets)
	byCluster := map[string]*render.Result{}
	for _, res := range results {
		byCluster[res.Target.Cluster] = res
		tg := res.Target
		t.Run(tg.Cluster, func(t *testing.T) { compareTarget(t, helm, root, res) })
	}
	return byCluster
}

// runHelmTemplate runs `helm template` for tg of the repository at root
// (plain values files only).
func runHelmTemplate(t *testing.T, helm helmCLI, root string, tg *layout.Target) (stdout, stderr []byte, err error) {
	t.Helper()
	args := []string{"template", tg.Namespace, filepath.Join(root, tg.ChartDir), "--namespace", tg.Namespace,
		"--kube-version", tg.KubeVersion, "--include-crds"}
	for _, v := range tg.Values {
		args = append(args, "-f", filepath.Join(root, v.Path))
	}
	cmd := exec.Command(helm.path, args...)
	cmd.Env = testtool.CleanEnv(filepath.Join(root, ".home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

// compareTarget requires res to be what `helm template` prints for its
// target, or to fail with its message, and returns Helm's stderr.
func compareTarget(t *testing.T, helm helmCLI, root string, res *render.Result) []byte {
	t.Helper()
	stdout, stderr, helmErr := runHelmTemplate(t, helm, root, &res.Target)
	switch {
	case helmErr == nil && res.Err == nil:
		if !bytes.Equal(stdout, res.Manifest) {
			t.Errorf("output differs from helm template:\n--- helm\n%s\n--- repotool\n%s", stdout, res.Manifest)
		}
		// Each object was parsed once, by manifest.Decode: the content
		// sigs.k8s.io/yaml, which Helm and Argo CD read with, gives.
		for _, o := range res.Objects {
			var want map[string]any
			if err := sigsyaml.Unmarshal(o.YAML, &want); err != nil || !reflect.DeepEqual(o.Content, want) {
				t.Errorf("%s %s: parsed as %v, sigs.k8s.io/yaml reads %v (%v)", o.Kind, o.Name, o.Content, want, err)
			}
		}
	case helmErr != nil && res.Err != nil:
		// Helm may log a warning first (an unresolved urn:); its message
		// is what follows "Error: ", without its advice to use --debug.
		_, want, _ := strings.Cut(string(stderr), "Error: ")
		want, _, _ = strings.Cut(want, "\n\nUse --debug flag")
		if want = strings.TrimSpace(want); want == "" || !strings.Contains(res.Err.Error(), want) {
			t.Errorf("messages differ:\n--- helm\n%.2000s\n--- repotool\n%.2000s", stderr, res.Err)
		}
	default:
		t.Errorf("helm template: %v %.2000s; repotool: %.2000v", helmErr, stderr, res.Err)
	}
	return stderr
}
