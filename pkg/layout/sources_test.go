package layout_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
)

// valuesOf are a target's values files as "scope path".
func valuesOf(t *testing.T, repo *layout.Repo, cluster, ns string) []string {
	t.Helper()
	tg, ok := repo.Target(cluster, ns)
	if !ok {
		t.Fatalf("no target %s/%s", cluster, ns)
	}
	out := []string{}
	for _, v := range tg.Values {
		out = append(out, v.Scope.String()+" "+v.Path)
	}
	return out
}

// TestSharedChart: namespaces.<ns>.chart gives several namespaces one
// chart, with or without a folder of their own for common values, and
// their inputs follow the chart.
func TestSharedChart(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml":                               "namespaces:\n  hub-a: {chart: helm-charts/basehub}\n  hub-b: {chart: helm-charts/basehub}\n",
		"helm-charts/basehub/Chart.yaml":              chart,
		"helm-charts/basehub/values.yaml":             "a: 1\n",
		"helm-charts/basehub/values.schema.yaml":      "type: object\n",
		"namespaces/hub-a/common-values-hub.yaml":     "b: 1\n",
		"namespaces/hub-a/notes.yaml":                 "c: 1\n",
		"namespaces/hub-a/values.schema.json":         "{}\n",
		"clusters/c1/hub-a/c1-values-hub.yaml":        "d: 1\n",
		"clusters/c1/hub-b/c1-values-hub.yaml":        "e: 1\n",
		"clusters/c1/hub-b/values.schema.yaml":        "type: object\n",
		"clusters/c2/hub-a/c2-values-hub.yaml":        "f: 1\n",
		"clusters/c2/hub-a/c2-values-hub.secret.yaml": encrypted,
	})
	want := []diag{
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/hub-b/values.schema.yaml", 0},
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "namespaces/hub-a/notes.yaml", 0},
	}
	if diff := cmp.Diff(want, diags(repo)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, tg := range repo.Targets {
		if tg.ChartDir != "helm-charts/basehub" || tg.NamespaceDir != "namespaces/"+tg.Namespace {
			t.Errorf("%s: chart %q, namespace folder %q", tg.Name(), tg.ChartDir, tg.NamespaceDir)
		}
	}
	if diff := cmp.Diff([]string{"common namespaces/hub-a/common-values-hub.yaml", "cluster clusters/c1/hub-a/c1-values-hub.yaml"},
		valuesOf(t, repo, "c1", "hub-a")); diff != "" {
		t.Errorf("c1/hub-a values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cluster clusters/c1/hub-b/c1-values-hub.yaml"}, valuesOf(t, repo, "c1", "hub-b")); diff != "" {
		t.Errorf("c1/hub-b values (-want +got):\n%s", diff)
	}
	tg, _ := repo.Target("c1", "hub-b")
	wantInputs := []string{".sops.yaml", "clusters/c1/hub-b", "helm-charts/basehub", "namespaces/hub-b", "repotool.sum", "repotool.yaml"}
	if diff := cmp.Diff(wantInputs, repo.Inputs(tg)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if ns, ok := repo.Namespace("hub-b"); !ok || ns.Chart == nil || !slices.Equal(ns.Clusters, []string{"c1"}) {
		t.Errorf("namespace hub-b, which has no folder: %+v", ns)
	}
}

// TestClusterWideValues: files directly in a cluster folder are values of
// every target of the cluster when layout.clusterWideValues names them,
// between the common and the target's own; otherwise a warning says they
// are not read.
func TestClusterWideValues(t *testing.T) {
	files := map[string]string{
		"namespaces/app/Chart.yaml":             chart,
		"namespaces/app/common-values-app.yaml": "a: 1\n",
		"clusters/c1/values-global.yaml":        "g: 1\n",
		"clusters/c1/values-global.secret.yaml": encrypted,
		"clusters/c1/notes.yaml":                "n: 1\n",
		"clusters/c1/app/c1-values-app.yaml":    "b: 1\n",
	}
	off := load(t, files)
	want := []diag{
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/notes.yaml", 0},
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/values-global.secret.yaml", 0},
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/values-global.yaml", 0},
	}
	if diff := cmp.Diff(want, diags(off)); diff != "" {
		t.Errorf("without clusterWideValues, diagnostics (-want +got):\n%s", diff)
	}
	files["repotool.yaml"] = "layout:\n  clusterWideValues: ['values-*.yaml']\n"
	on := load(t, files)
	if diff := cmp.Diff(want[:1], diags(on)); diff != "" {
		t.Errorf("with clusterWideValues, diagnostics (-want +got):\n%s", diff)
	}
	wantValues := []string{
		"common namespaces/app/common-values-app.yaml",
		"cluster-wide clusters/c1/values-global.yaml",
		"cluster-wide clusters/c1/values-global.secret.yaml",
		"cluster clusters/c1/app/c1-values-app.yaml",
	}
	if diff := cmp.Diff(wantValues, valuesOf(t, on, "c1", "app")); diff != "" {
		t.Errorf("merge order (-want +got):\n%s", diff)
	}
	tg, _ := on.Target("c1", "app")
	inputs := on.Inputs(tg)
	if !slices.Contains(inputs, "clusters/c1/values-*.yaml") {
		t.Errorf("inputs %v lack the cluster-wide glob", inputs)
	}
	for p, want := range map[string]bool{"clusters/c1/values-new.yaml": true, "clusters/c1/other/x-values.yaml": false, "clusters/c2/values-a.yaml": false} {
		if got := slices.ContainsFunc(inputs, func(in string) bool { return layout.InputHolds(in, p) }); got != want {
			t.Errorf("a change to %s affects c1/app: %v, want %v", p, got, want)
		}
	}
}

// TestValuesLists: repotool.yaml lists a target's values files in merge
// order, by cluster and namespace or by a pattern for every cluster; a
// listed target needs no folder, a file the list leaves out is reported,
// and a missing listed file fails the target.
func TestValuesLists(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml": `namespaces:
  staging: {chart: helm-charts/basehub}
  prod: {chart: helm-charts/basehub}
  old: {chart: helm-charts/basehub}
defaults:
  values:
    "*":
      - config/common.values.yaml
      - config/clusters/{cluster}/{namespace}.values.yaml
clusters:
  c1:
    values:
      staging:
        - config/clusters/c1/staging.values.yaml
        - config/common.values.yaml
      old:
        - config/clusters/c1/gone.values.yaml
`,
		"helm-charts/basehub/Chart.yaml":          chart,
		"config/common.values.yaml":               "a: 1\n",
		"config/clusters/c1/staging.values.yaml":  "b: 1\n",
		"config/clusters/c1/prod.values.yaml":     "c: 1\n",
		"config/clusters/c1/unlisted.values.yaml": "d: 1\n",
		"clusters/c1/prod/prod-values-x.yaml":     "e: 1\n",
		"clusters/c1/staging/":                    "",
	})
	if diff := cmp.Diff([]string{"cluster config/clusters/c1/staging.values.yaml", "common config/common.values.yaml"},
		valuesOf(t, repo, "c1", "staging")); diff != "" {
		t.Errorf("c1/staging (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"common config/common.values.yaml", "cluster config/clusters/c1/prod.values.yaml"}, valuesOf(t, repo, "c1", "prod")); diff != "" {
		t.Errorf("c1/prod (-want +got):\n%s", diff)
	}
	old, _ := repo.Target("c1", "old")
	if !old.Declared || old.Dir != "clusters/c1" || len(old.Errors) != 1 || old.Errors[0].Code != layout.CodeValuesList || old.Errors[0].Line != 17 {
		t.Errorf("c1/old: declared %v, folder %q, errors %v", old.Declared, old.Dir, old.Errors)
	}
	want := []diag{
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/prod/prod-values-x.yaml", 0},
		{layout.SeverityError, layout.CodeValuesList, "repotool.yaml", 17},
	}
	if diff := cmp.Diff(want, diags(repo)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	inputs := repo.Inputs(old)
	if slices.Contains(inputs, "clusters/c1") || !slices.Contains(inputs, "config/clusters/c1/gone.values.yaml") {
		t.Errorf("a declared target's inputs are its listed files, missing ones too, not its cluster's folder: %v", inputs)
	}
}

// TestValuesListPatternsOverlap: two patterns of defaults.values that match
// one namespace are an error of its targets, naming both.
func TestValuesListPatternsOverlap(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml":                 "defaults:\n  values:\n    'hub-*': [a.yaml]\n    '*-a': [b.yaml]\n",
		"a.yaml":                        "a: 1\n",
		"b.yaml":                        "b: 1\n",
		"namespaces/hub-a/Chart.yaml":   chart,
		"clusters/c1/hub-a/values.yaml": "x: 1\n",
	})
	tg, _ := repo.Target("c1", "hub-a")
	if len(tg.Errors) != 1 || tg.Errors[0].Code != layout.CodeValuesList {
		t.Fatalf("errors %v, want one values-list error", tg.Errors)
	}
	if msg := tg.Errors[0].Message; msg != `defaults.values patterns *-a, hub-* all match namespace "hub-a": list its values under its own name, `+
		"or make the patterns exclusive" {
		t.Errorf("message %q", msg)
	}
}

// TestTargetTemplate: layout.targets finds targets by a path template;
// a namespace named before its clusters has its chart and common values in
// its own folder, and two folders for one target fail it.
func TestTargetTemplate(t *testing.T) {
	files := map[string]string{
		"repotool.yaml":                               "layout:\n  targets: projects/{team}/{namespace}/{cluster}/{env}\n",
		"projects/web/shop/Chart.yaml":                chart,
		"projects/web/shop/common-values.yaml":        "a: 1\n",
		"projects/web/shop/c1/prod/values.yaml":       "b: 1\n",
		"projects/web/shop/c2/dev/values.yaml":        "c: 1\n",
		"projects/web/shop/c2/dev/values.secret.yaml": encrypted,
		"projects/data/etl/Chart.yaml":                chart,
		"projects/data/etl/c1/prod/values.yaml":       "d: 1\n",
		"projects/data/etl/c1/staging/values.yaml":    "e: 1\n",
		"projects/.git/x/y/z/values.yaml":             "f: 1\n",
		"projects/data/README.md":                     "# data\n",
	}
	repo := load(t, files)
	var names []string
	for _, tg := range repo.Targets {
		names = append(names, tg.Name()+" "+tg.Dir+" "+tg.ChartDir)
	}
	want := []string{
		"c1/etl projects/data/etl/c1/prod projects/data/etl",
		"c1/shop projects/web/shop/c1/prod projects/web/shop",
		"c2/shop projects/web/shop/c2/dev projects/web/shop",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"common projects/web/shop/common-values.yaml", "cluster projects/web/shop/c2/dev/values.yaml",
		"cluster projects/web/shop/c2/dev/values.secret.yaml"}, valuesOf(t, repo, "c2", "shop")); diff != "" {
		t.Errorf("c2/shop values (-want +got):\n%s", diff)
	}
	etl, _ := repo.Target("c1", "etl")
	if len(etl.Errors) != 1 || etl.Errors[0].Code != layout.CodeTargetConflict || etl.Errors[0].File != "projects/data/etl/c1/staging" {
		t.Errorf("c1/etl, in two folders: errors %v", etl.Errors)
	}
	for _, cl := range repo.Clusters {
		if cl.Dir != "" {
			t.Errorf("cluster %s has folder %q: its targets are below its namespaces' folders", cl.Name, cl.Dir)
		}
	}
	shop, _ := repo.Target("c1", "shop")
	if diff := cmp.Diff([]string{".sops.yaml", "projects/web/shop", "repotool.sum", "repotool.yaml"}, repo.Inputs(shop)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	// Two teams with a namespace of one name.
	files["projects/data/shop/Chart.yaml"] = chart
	files["projects/data/shop/c3/prod/values.yaml"] = "g: 1\n"
	repo = load(t, files)
	if !slices.Contains(diags(repo), diag{layout.SeverityError, layout.CodeTargetConflict, "projects/web/shop", 0}) {
		t.Errorf("a namespace in two teams' folders is not reported: %v", diags(repo))
	}
	c3, _ := repo.Target("c3", "shop")
	if c3 == nil || len(c3.Errors) == 0 {
		t.Errorf("c3/shop, of the namespace's second folder, does not fail: %+v", c3)
	}
}

// TestTargetTemplateSkipsChartFolders: below a namespace folder that is a
// chart, Helm's own folders are never parts of the template (a subchart
// under charts/ is no cluster), and the chart's templates are no stray
// files.
func TestTargetTemplateSkipsChartFolders(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml":                           "layout:\n  targets: apps/{namespace}/{cluster}/{env}\n",
		"apps/shop/Chart.yaml":                    chart,
		"apps/shop/templates/cm.yaml":             "kind: ConfigMap\n",
		"apps/shop/charts/redis/templates/x.yaml": "kind: ConfigMap\n",
		"apps/shop/crds/a/b.yaml":                 "kind: CustomResourceDefinition\n",
		"apps/shop/c1/prod/values.yaml":           "a: 1\n",
		"apps/shop/c1/notes.yaml":                 "n: 1\n",
	})
	var names []string
	for _, tg := range repo.Targets {
		names = append(names, tg.Name())
	}
	if !slices.Equal(names, []string{"c1/shop"}) {
		t.Errorf("targets %v, want c1/shop alone", names)
	}
	if diff := cmp.Diff([]diag{{layout.SeverityWarning, layout.CodeFileUnrecognized, "apps/shop/c1/notes.yaml", 0}}, diags(repo)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestUnloadableValuesFailTheirTargets: a values file a target would read
// that cannot be loaded (a listed link leading out of the repository, a
// cluster-wide values link that dangles) fails the target, although it is
// not among the target's values; a target that would not read it is not
// failed.
func TestUnloadableValuesFailTheirTargets(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml":                 "clusters:\n  c1:\n    values:\n      app: [shared/out.yaml]\nlayout:\n  clusterWideValues: ['values-*.yaml']\n",
		"namespaces/app/Chart.yaml":     chart,
		"namespaces/other/Chart.yaml":   chart,
		"shared/out.yaml":               "symlink:../../outside.yaml",
		"clusters/c1/values-x.yaml":     "symlink:../../nowhere.yaml",
		"clusters/c1/other/values.yaml": "a: 1\n",
		"clusters/c2/other/values.yaml": "a: 1\n",
	})
	want := map[string]layout.Code{"c1/app": layout.CodeSymlinkEscape, "c1/other": layout.CodeSymlinkBroken}
	for _, tg := range repo.Targets {
		var codes []layout.Code
		for _, d := range tg.Errors {
			codes = append(codes, d.Code)
		}
		if w, ok := want[tg.Name()]; ok && !slices.Equal(codes, []layout.Code{w}) || !ok && len(codes) > 0 {
			t.Errorf("%s: errors %v, want %v", tg.Name(), codes, w)
		}
	}
}
