package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/render"
)

// helm4Chart exercises what Helm 4 renders otherwise than Helm 3: its
// template functions (Helm 3 does not parse the chart), documents' trailing
// blank lines and a separator glued to the next line, webhook
// configurations sorted after APIService, multi-document values files
// (the chart's and the repository's), the vendor suffix of the Kubernetes
// version, and its traced execution errors.
var helm4Chart = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: app\nversion: 1.0.0\n",
	"values.yaml": "obj:\n  b: [1, two]\n  a: {x: y}\ntimeout: 90\n---\nfromSecondDoc: true\nobj:\n  c: 3\n",
	"templates/_helpers.tpl": `{{- define "deep" -}}{{ .Values.missing.deeper.x }}{{- end -}}
{{- define "outer" -}}{{ include "deep" . }}{{- end -}}
`,
	"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: functions
data:
  yaml: |
    {{- .Values.obj | mustToYaml | nindent 4 }}
  toml: {{ mustToToml .Values.obj | quote }}
  json: {{ mustToJson .Values.obj | quote }}
  d1: {{ mustToDuration "90m" | quote }}
  d2: {{ durationSeconds "1h" | quote }}
  d3: {{ durationMinutes .Values.timeout | quote }}
  d4: {{ durationHours "2.5" | quote }}
  d5: {{ durationDays "36h" | quote }}
  d6: {{ durationWeeks "336h" | quote }}
  d7: {{ durationMilliseconds 1.5 | quote }}
  d8: {{ durationMicroseconds "1ms" | quote }}
  d9: {{ durationNanoseconds "1us" | quote }}
  d10: {{ durationRoundTo "2h13m" "30m" | quote }}
  d11: {{ durationTruncateTo "2h13m" "1h" | quote }}
  d12: {{ durationRoundTo "nope" "1h" | quote }}
  d13: {{ durationRoundTo "2h13m" "nope" | quote }}
  d14: {{ durationSeconds "nope" | quote }}
  d15: {{ durationSeconds -3 | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  kubeString: {{ .Capabilities.KubeVersion | quote }}
  gitVersion: {{ .Capabilities.KubeVersion.GitVersion | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  helm: {{ .Capabilities.HelmVersion.Version | quote }}
  second: {{ .Values.fromSecondDoc | quote }}
  cluster: {{ .Values.fromClusterSecondDoc | quote }}
{{- if .Values.nilPointer }}
  deep: {{ include "outer" . }}
{{- end }}
{{- if .Values.badDuration }}
  bad: {{ mustToDuration "abc" }}
{{- end }}


---apiVersion: v1
kind: ConfigMap
metadata:
  name: glued


`,
	"templates/webhooks.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating
---
apiVersion: example.com/v1
kind: Aardvark
metadata:
  name: custom
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.example.com
`,
}

// TestHelm4EngineParity renders helm4Chart as both Helms do: Helm 4
// renders it, Helm 3 fails to parse it, and repotool matches each.
func TestHelm4EngineParity(t *testing.T) {
	values := map[string]string{
		"defaults":     "fromClusterSecondDoc: false\n---\nfromClusterSecondDoc: true\n",
		"nil-pointer":  "nilPointer: true\n",
		"bad-duration": "badDuration: true\n",
	}
	vendor := map[string]string{"repotool.yaml": "defaults:\n  kubeVersion: v1.33.4-gke.1245000\n"}
	for _, h := range bothHelms(t) {
		t.Run(h.version, func(t *testing.T) {
			results := compareWithHelm(t, h, helm4Chart, values, vendor)
			if h.version == render.HelmV3 {
				if err := results["defaults"].Err; err == nil || !strings.Contains(err.Error(), `function "mustToYaml" not defined`) {
					t.Errorf("Helm 3 should not know mustToYaml: %v", err)
				}
				return
			}
			res := results["defaults"]
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, w := range []string{`kube: "v1.33.4-gke.1245000"`, `kubeString: "{v1.33.4-gke.1245000 v1.33.4 1 33}"`, `second: "true"`, `cluster: "true"`, `d1: "1h30m0s"`,
				`d10: "2h0m0s"`, "\n\n---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: glued",
				"name: v1.example.com\n\n---\n# Source: app/templates/webhooks.yaml\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration"} {
				if !bytes.Contains(res.Manifest, []byte(w)) {
					t.Errorf("the rendering lacks %q:\n%s", w, res.Manifest)
				}
			}
			if !strings.Contains(results["nil-pointer"].Err.Error(), "\n  executing \"deep\" at <.Values.missing.deeper.x>:\n    nil pointer evaluating") {
				t.Errorf("nil-pointer: not Helm 4's trace: %v", results["nil-pointer"].Err)
			}
		})
	}
	// A chart's kubeVersion constraint: Helm 4 names the version as given.
	chart := map[string]string{"Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\nkubeVersion: \">=1.34.0-0\"\n", "templates/a.yaml": "kind: A\n"}
	for _, h := range bothHelms(t) {
		t.Run("kubeVersion/"+h.version, func(t *testing.T) {
			compareWithHelm(t, h, chart, map[string]string{"c": "{}\n"}, vendor)
		})
	}
}
