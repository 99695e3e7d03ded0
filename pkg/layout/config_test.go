package layout_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

func TestLoadWithConfig(t *testing.T) {
	repo := load(t, map[string]string{
		"repotool.yaml": `clusters:
  dev:
    kubeVersion: v1.30.1
    destination:
      name: dev-cluster
  gone: {}
namespaces:
  infra:
    tier: cluster
  removed:
    tier: cluster
layout:
  namespacesDir: apps
  clustersDir: envs
  clusterValues: ["values-*.yaml"]
  secretSuffixes: [".enc.yaml"]
`,
		"apps/infra/Chart.yaml":            chart,
		"envs/dev/infra/values-a.yaml":     "a: 1\n",
		"envs/dev/infra/values-b.enc.yaml": encrypted,
		"envs/dev/infra/dev-values.yaml":   "a: 1\n", // matches no pattern now
	})
	if repo.ConfigFile != "repotool.yaml" {
		t.Errorf("ConfigFile = %q", repo.ConfigFile)
	}
	want := []diag{
		{layout.SeverityWarning, layout.CodeFileUnrecognized, "envs/dev/infra/dev-values.yaml", 0},
		{layout.SeverityWarning, layout.CodeConfigUnused, "repotool.yaml", 6},
		{layout.SeverityWarning, layout.CodeConfigUnused, "repotool.yaml", 10},
	}
	if diff := cmp.Diff(want, diags(repo)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, repo.Diagnostics)
	}
	tg, ok := repo.Target("dev", "infra")
	if !ok {
		t.Fatal("no target dev/infra")
	}
	if tg.Tier != config.TierCluster || tg.KubeVersion != "v1.30.1" || len(tg.Values) != 2 || !tg.Values[1].Secret {
		t.Errorf("target = %+v", tg)
	}
	if cl, _ := repo.Cluster("dev"); cl.Destination != (config.Destination{Name: "dev-cluster"}) {
		t.Errorf("destination = %+v", cl.Destination)
	}
}

func TestLoadInvalidConfig(t *testing.T) {
	_, err := layout.Load(context.Background(), mapFS(map[string]string{
		"repotool.yaml":             "clusters:\n  dev:\n    kubeVerison: v1.30.0\n",
		"namespaces/app/Chart.yaml": chart,
	}), layout.Options{})
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Line != 3 {
		t.Fatalf("err = %v, want ConfigError at line 3", err)
	}
}

func TestLoadExplicitConfig(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.Layout.ClustersDir = "envs"
	repo, err := layout.Load(context.Background(), mapFS(map[string]string{
		"repotool.yaml":           "this file is ignored: [",
		"namespaces/a/Chart.yaml": chart,
		"envs/c/a/values-x.yaml":  "a: 1\n",
	}), layout.Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.Targets) != 1 || repo.ConfigFile != "" {
		t.Errorf("targets = %v, config file = %q", repo.Targets, repo.ConfigFile)
	}
}
