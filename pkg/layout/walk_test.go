package layout_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
)

// TestOneWalk: the default layout and the same layout written as
// layout.targets are found by one walk, so they load alike: the same
// targets, clusters (one with no namespace folder among them, with its
// declared target) and diagnostics. A hidden
// folder where a cluster's or a namespace's is expected is reported, not
// passed by unseen, as is a YAML file among the cluster folders; a hidden
// folder on the way (.git) is passed by.
func TestOneWalk(t *testing.T) {
	files := map[string]string{
		"namespaces/shop/Chart.yaml":                chart,
		"namespaces/shop/common-values.yaml":        "a: 1\n",
		"clusters/c1/shop/prod-values.yaml":         "b: 1\n",
		"clusters/c1/.shop/prod-values.yaml":        "c: 1\n",
		"clusters/.c3/shop/prod-values.yaml":        "d: 1\n",
		"clusters/c2/cluster-values.yaml":           "e: 1\n",
		"lists/c2-shop.yaml":                        "f: 1\n",
		"clusters/notes.yaml":                       "g: 1\n",
		"clusters/c1/shop/.git/HEAD":                "ref: main\n",
		"clusters/c1/shop/.hidden/prod-values.yaml": "h: 1\n",
		"namespaces/shop/templates/configmap.yaml":  "kind: ConfigMap\n",
	}
	config := "layout:\n  clusterWideValues: [cluster-values.yaml]\nclusters:\n  c2:\n    values:\n      shop: [lists/c2-shop.yaml]\n"
	files["repotool.yaml"] = config
	def := load(t, files)
	files["repotool.yaml"] = "layout:\n  targets: clusters/{cluster}/{namespace}\n  clusterWideValues: [cluster-values.yaml]\n" +
		"clusters:\n  c2:\n    values:\n      shop: [lists/c2-shop.yaml]\n"
	tpl := load(t, files)
	for _, repo := range []*layout.Repo{def, tpl} {
		var targets, clusters []string
		for _, tg := range repo.Targets {
			targets = append(targets, tg.Name()+" "+tg.Dir)
		}
		for _, cl := range repo.Clusters {
			clusters = append(clusters, cl.Name+" "+cl.Dir)
		}
		if diff := cmp.Diff([]string{"c1/shop clusters/c1/shop", "c2/shop clusters/c2"}, targets); diff != "" {
			t.Errorf("%s: targets (-want +got):\n%s", repo.Config.Layout.Targets, diff)
		}
		if diff := cmp.Diff([]string{"c1 clusters/c1", "c2 clusters/c2"}, clusters); diff != "" {
			t.Errorf("%s: clusters (-want +got):\n%s", repo.Config.Layout.Targets, diff)
		}
		if diff := cmp.Diff([]string{"common lists/c2-shop.yaml"}, valuesOf(t, repo, "c2", "shop")); diff != "" {
			t.Errorf("%s: c2/shop values (-want +got):\n%s", repo.Config.Layout.Targets, diff)
		}
		for _, want := range []diag{
			{layout.SeverityError, layout.CodeNameInvalid, "clusters/.c3", 0},
			{layout.SeverityError, layout.CodeNameInvalid, "clusters/c1/.shop", 0},
			{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/notes.yaml", 0},
		} {
			if !slices.Contains(diags(repo), want) {
				t.Errorf("%s: no %v among %v", repo.Config.Layout.Targets, want, diags(repo))
			}
		}
	}
	if diff := cmp.Diff(diags(def), diags(tpl)); diff != "" {
		t.Errorf("diagnostics, default (-) and written out (+):\n%s", diff)
	}
}
