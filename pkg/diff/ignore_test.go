package diff_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/render"
)

// TestIgnore commits a repository, then a change that touches, in one
// target: a webhook's caBundle made by genCA (so it changes on every
// rendering), another given in values, a Deployment's checksum annotation alone, a second
// Deployment's checksum annotation with its image, a ConfigMap key a
// diff.ignore rule names by pointer and one it names by pattern, and a
// ConfigMap key the namespace's Applications' ignoreDifferences name (by
// jsonPointers, and by a jqPathExpression, as lint's drift rule reads it). Each object whose every changed field is ignored is hidden
// with its reason, the others are shown; --no-ignore shows them all.
func TestIgnore(t *testing.T) {
	dir := t.TempDir()
	files := func(ver, image, level string) map[string]string {
		return map[string]string{
			"repotool.yaml": "diff:\n  ignore:\n    - object: \":ConfigMap:*/settings\"\n      pointers: [/data/build]\n      patterns: ['^/data/stamp-']\n" +
				"namespaces:\n  app:\n    ignoreDifferences:\n      - {kind: ConfigMap, name: other, jsonPointers: [/data/level]}\n" +
				"      - {kind: ConfigMap, name: third, jqPathExpressions: ['.data[\"log-level\"]']}\n",
			"namespaces/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
			"namespaces/app/templates/webhook.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: app\nwebhooks:\n" +
				"  - name: app.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig:\n      caBundle: {{ (genCA \"app\" 365).Cert | b64enc }}\n      service: {name: app, namespace: app}\n",
			"namespaces/app/templates/webhook2.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: app2\nwebhooks:\n" +
				"  - name: app2.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig:\n      caBundle: {{ .Values.ver | b64enc }}\n      service: {name: app, namespace: app}\n",
			"namespaces/app/templates/deploy.yaml": "{{- range $n := list \"a\" \"b\" }}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ $n }}\nspec:\n  template:\n    metadata:\n      annotations:\n" +
				"        checksum/config: {{ $.Values.level | sha256sum }}\n    spec:\n      containers:\n        - name: c\n          image: {{ if eq $n \"b\" }}{{ $.Values.image }}{{ else }}app:1{{ end }}\n{{- end }}\n",
			"namespaces/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  build: {{ .Values.ver | quote }}\n  stamp-{{ .Values.ver }}: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  level: {{ .Values.level | quote }}\n" +
				"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: third\ndata:\n  log-level: {{ .Values.level | quote }}\n",
			"clusters/c1/app/values.yaml": "ver: \"" + ver + "\"\nimage: \"" + image + "\"\nlevel: \"" + level + "\"\n",
		}
	}
	testtool.WriteFiles(t, dir, files("1", "app:1", "info"))
	testtool.GitCommit(t, dir, "base")
	testtool.WriteFiles(t, dir, files("2", "app:2", "debug"))
	testtool.GitCommit(t, dir, "head")
	base, head, changed := commits(t, dir)
	run := func(noIgnore bool) *change.Result {
		res, err := diff.Run(context.Background(), base, head, changed, diff.Options{Render: render.DefaultOptions(), NoIgnore: noIgnore})
		if err != nil || len(res.Errors) > 0 {
			t.Fatal(err, res.Errors)
		}
		return res
	}
	res := run(false)
	var shown, hidden []string
	for _, c := range res.Changes {
		shown = append(shown, c.Object)
	}
	for _, h := range res.Hidden {
		hidden = append(hidden, h.Object+" ("+h.Reason+")")
	}
	wantShown := "apps/v1/Deployment b"
	wantHidden := "v1/ConfigMap other (the Applications' ignoreDifferences (ConfigMap)); v1/ConfigMap settings (diff.ignore rule 1 (:ConfigMap:*/settings)); " +
		"v1/ConfigMap third (the Applications' ignoreDifferences (ConfigMap)); " +
		"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration app (regenerated on every render); " +
		"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration app2 (a webhook's caBundle); " +
		"apps/v1/Deployment a (checksum/ annotations)"
	if got := strings.Join(shown, " "); got != wantShown {
		t.Errorf("shown: %s\nwant:  %s", got, wantShown)
	}
	if got := strings.Join(hidden, "; "); got != wantHidden {
		t.Errorf("hidden: %s\nwant:   %s", got, wantHidden)
	}
	if all := run(true); len(all.Changes) != 7 || len(all.Hidden) != 0 {
		t.Errorf("--no-ignore: %d shown, %d hidden", len(all.Changes), len(all.Hidden))
	}
}
