package layout_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
)

// clusterSet is an ApplicationSet of the clusters generator (with the
// selector given, if any) deploying charts/web to each cluster.
func clusterSet(selector string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: web\nspec:\n  generators:\n    - clusters: {" + selector + "}\n" +
		"  template:\n    metadata:\n      name: 'web-{{name}}'\n    spec:\n      project: default\n" +
		"      destination: {server: '{{server}}', namespace: web}\n" +
		"      source: {repoURL: https://github.com/org/gitops, path: charts/web}\n"
}

// TestApplicationSetClusters: the clusters generator lists the clusters of
// the Argo CD that reads the file: with one per cluster ({cluster}), the
// cluster it runs in (a Secret when repotool.yaml gives it labels); with a
// central one, a Secret for each cluster with a destination name, and the
// cluster it runs in; a cluster it reads whose Argo CD name is unknown is
// an error at the generator, and none of the set's Applications a target.
func TestApplicationSetClusters(t *testing.T) {
	const perCluster = "git:\n  repoURL: https://github.com/org/gitops.git\napplications:\n  paths: [\"argocd/{cluster}/*.yaml\"]\n" +
		"clusters:\n  prod:\n    labels: {env: prod}\n  dev: {}\n"
	const central = "git:\n  repoURL: https://github.com/org/gitops.git\napplications:\n  paths: [\"argocd/*.yaml\"]\n" +
		"clusters:\n  hub: {}\n  eu:\n    destination: {name: eu, server: https://eu.example.com}\n    labels: {env: prod}\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		diag  string
	}{
		{"one Argo CD a cluster", map[string]string{"repotool.yaml": perCluster, "argocd/prod/web.yaml": clusterSet(""), "argocd/dev/web.yaml": clusterSet("")},
			[]string{"dev/web-in-cluster", "prod/web-in-cluster"}, ""},
		{"one a cluster, by labels", map[string]string{"repotool.yaml": perCluster, "argocd/prod/web.yaml": clusterSet("selector: {matchLabels: {env: prod}}"),
			"argocd/dev/web.yaml": clusterSet("selector: {matchLabels: {env: prod}}")}, []string{"prod/web-in-cluster"}, ""},
		{"central", map[string]string{"repotool.yaml": central, "argocd/web.yaml": clusterSet("")}, []string{"eu/web-eu", "hub/web-in-cluster"}, ""},
		{"central, by labels", map[string]string{"repotool.yaml": central, "argocd/web.yaml": clusterSet("selector: {matchLabels: {env: prod}}")},
			[]string{"eu/web-eu"}, ""},
		{"a cluster whose Argo CD name is unknown", map[string]string{"repotool.yaml": strings.Replace(central, "name: eu, ", "", 1), "argocd/web.yaml": clusterSet("")},
			nil, "argocd/web.yaml:7: error: ApplicationSet: the clusters generator reads cluster https://eu.example.com, whose name in Argo CD repotool does not know"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.files["charts/web/Chart.yaml"] = chart
			repo := load(t, tt.files)
			var got []string
			for _, tg := range repo.Targets {
				got = append(got, tg.Name())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("targets %q, want %q", got, tt.want)
			}
			var diags []string
			for _, d := range repo.Diagnostics {
				if d.Code != layout.CodeConfigUnused {
					diags = append(diags, d.String())
				}
			}
			if tt.diag == "" && len(diags) > 0 || tt.diag != "" && (len(diags) != 1 || !strings.HasPrefix(diags[0], tt.diag)) {
				t.Errorf("diagnostics %q, want %q", diags, tt.diag)
			}
		})
	}
}
