package diff_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestCompareHelm renders targets under Helm 3 and Helm 4 and names what
// differs, with its cause: .Capabilities.KubeVersion.Version on a cluster
// with a vendor suffix, a values file of two documents (Helm 4 merges
// them), a webhook configuration Helm 4 sorts elsewhere (a warning, no
// object change), a chart that uses a Helm 4 function (it fails under
// Helm 3: an error); a target that renders the same under both is not
// listed. The community charts render the same objects under both.
func TestCompareHelm(t *testing.T) {
	dir := t.TempDir()
	chart := func(name string) string { return "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n" }
	testtool.WriteFiles(t, dir, map[string]string{
		"repotool.yaml":                       "clusters:\n  gke: {kubeVersion: v1.33.4-gke.1245000}\n  plain: {kubeVersion: v1.33.4}\n",
		"namespaces/caps/Chart.yaml":          chart("caps"),
		"namespaces/caps/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
		"namespaces/docs/Chart.yaml":          chart("docs"),
		"namespaces/docs/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: docs\ndata:\n  a: {{ .Values.a | quote }}\n  b: {{ .Values.b | default \"unset\" | quote }}\n",
		"namespaces/hooks/Chart.yaml":         chart("hooks"),
		"namespaces/hooks/templates/all.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: hooks\nwebhooks: []\n",
		"namespaces/four/Chart.yaml":          chart("four"),
		"namespaces/four/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: four\ndata:\n  d: {{ mustToDuration \"90s\" | quote }}\n",
		"clusters/gke/caps/values.yaml":       "{}\n",
		"clusters/plain/caps/values.yaml":     "{}\n",
		"clusters/plain/docs/values.yaml":     "a: one\n---\nb: two\n",
		"clusters/plain/hooks/values.yaml":    "{}\n",
		"clusters/plain/four/values.yaml":     "{}\n",
	})
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := diff.CompareHelm(context.Background(), repo, repo.Targets, diff.Options{Render: render.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, tg := range res.Targets {
		targets = append(targets, tg.Name)
	}
	if got := strings.Join(targets, " "); got != "gke/caps plain/docs plain/four plain/hooks" {
		t.Errorf("targets: %s", got)
	}
	causes := map[string]string{}
	for _, c := range res.Changes {
		causes[c.Target] = c.Cause
	}
	if !strings.Contains(causes["gke/caps"], "vendor suffix") || !strings.Contains(causes["plain/docs"], "clusters/plain/docs/values.yaml") {
		t.Errorf("causes: %q", causes)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "plain/four at Helm 3") || !strings.Contains(res.Errors[0], "mustToDuration") {
		t.Errorf("errors: %q", res.Errors)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "plain/hooks: Helm 4 renders the objects in another order") {
		t.Errorf("warnings: %q", res.Warnings)
	}

	root := filepath.Join(t.TempDir(), "community")
	files := map[string]string{"repotool.yaml": "clusters:\n  c1: {kubeVersion: v1.34.0}\n"}
	for _, c := range testtool.CommunityCharts {
		for p, data := range c.Files(t) {
			files["namespaces/"+c.Name+"/"+p] = data
		}
		files["clusters/c1/"+c.Name+"/values.yaml"] = "{}\n"
	}
	testtool.WriteFiles(t, root, files)
	community, err := layout.LoadDir(context.Background(), root, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = diff.CompareHelm(context.Background(), community, community.Targets, diff.Options{Render: render.DefaultOptions()})
	if err != nil || len(res.Changes) != 0 || len(res.Errors) != 0 {
		t.Errorf("community charts: %v %d changes %q %q", err, len(res.Changes), res.Errors, res.Warnings)
	}
	t.Logf("community charts: warnings %q", res.Warnings)
}
