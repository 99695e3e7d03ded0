package argocd_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

const fixture = "../../testdata/monorepo"

func loadFixture(t testing.TB) *layout.Repo {
	t.Helper()
	repo, err := layout.LoadDir(context.Background(), fixture, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestGenerateGolden keeps testdata/golden/<cluster>/<file> equal to what
// Generate makes for the fixture (both clusters), and the plugin files.
// internal/argocdcheck validates these goldens with Argo CD's own types.
func TestGenerateGolden(t *testing.T) {
	repo := loadFixture(t)
	files, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		data, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Path())
		golden.Check(t, filepath.Join("testdata", "golden", filepath.FromSlash(f.Path())), data)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "files.txt"), []byte(strings.Join(names, "\n")+"\n"))
	set := argocd.SettingsOf(&repo.Config)
	plugin, err := argocd.PluginYAML(set)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "plugin", "plugin.yaml"), plugin)
	set.Discovery = true
	discovery, err := argocd.PluginYAML(set)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "plugin", "plugin-discovery.yaml"), discovery)
	set.Discovery = false
	exclusions, err := argocd.TarExclusions(repo)
	if err != nil {
		t.Fatal(err)
	}
	install, err := argocd.PluginInstall(set, "ghcr.io/example/repotool:v0.1.0", exclusions,
		argocd.SidecarEnv{Cluster: "prod-cluster", AllowKeys: []string{"hc_vault=https://vault.example.com:8200"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := argocd.PluginInstall(set, "ghcr.io/example/repotool:v0.1.0", exclusions, argocd.SidecarEnv{}); err == nil {
		t.Error("a sidecar without its cluster was installed")
	}
	golden.Check(t, filepath.Join("testdata", "golden", "plugin", "install.yaml"), install)
}

func TestGenerateDeterministic(t *testing.T) {
	repo := loadFixture(t)
	dump := func() []byte {
		files, err := argocd.Generate(repo, argocd.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, f := range files {
			data, _ := f.Bytes()
			b.WriteString(f.Path())
			b.Write(data)
		}
		return b.Bytes()
	}
	first := dump()
	for range 5 {
		if !bytes.Equal(first, dump()) {
			t.Fatal("Generate is not deterministic")
		}
	}
}

// projects returns the generated AppProjects and Applications of a cluster.
func generated(t *testing.T, repo *layout.Repo, cluster string) (map[string]*argocd.AppProject, map[string]*argocd.Application) {
	t.Helper()
	files, err := argocd.Generate(repo, argocd.Options{Clusters: []string{cluster}})
	if err != nil {
		t.Fatal(err)
	}
	projects, apps := map[string]*argocd.AppProject{}, map[string]*argocd.Application{}
	for _, f := range files {
		switch o := f.Object.(type) {
		case *argocd.AppProject:
			projects[o.Metadata.Name] = o
		case *argocd.Application:
			apps[o.Metadata.Name] = o
		}
	}
	return projects, apps
}

func TestGenerateErrors(t *testing.T) {
	base := func(cfg string, extra map[string]string) *layout.Repo {
		fsys := fstest.MapFS{
			"repotool.yaml":               {Data: []byte(cfg)},
			"namespaces/app/Chart.yaml":   {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
			"clusters/c1/app/values.yaml": {Data: []byte("a: 1\n")},
		}
		for p, c := range extra {
			fsys[p] = &fstest.MapFile{Data: []byte(c)}
		}
		repo, err := layout.Load(context.Background(), fsys, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}
	if _, err := argocd.Generate(base("clusters: {c1: {}}\n", nil), argocd.Options{}); !errors.Is(err, argocd.ErrNoRepoURL) {
		t.Errorf("no repoURL: err = %v", err)
	}
	withURL := "git:\n  repoURL: https://example.com/r.git\n"
	collide := base(withURL, map[string]string{
		"namespaces/namespaces/Chart.yaml":   "apiVersion: v2\nname: x\nversion: 1.0.0\n",
		"clusters/c1/namespaces/values.yaml": "a: 1\n",
	})
	if _, err := argocd.Generate(collide, argocd.Options{}); err == nil || !strings.Contains(err.Error(), `AppProject name "namespaces" is needed by both`) {
		t.Errorf("name collision: err = %v", err)
	}
	sec := base(withURL, map[string]string{
		"namespaces/app-security/Chart.yaml":   "apiVersion: v2\nname: x\nversion: 1.0.0\n",
		"clusters/c1/app-security/values.yaml": "a: 1\n",
	})
	if _, err := argocd.Generate(sec, argocd.Options{}); err == nil || !strings.Contains(err.Error(), `Application name "app-security"`) {
		t.Errorf("application name collision: err = %v", err)
	}
	if _, err := argocd.Generate(base(withURL, nil), argocd.Options{Clusters: []string{"nope"}}); err == nil {
		t.Error("unknown cluster accepted")
	}
}

// TestGenerateLongNames: with the longest names a cluster and namespaces
// may have (63 characters), every generated string stays within Argo CD's
// CRD limits (an AppProject's description: 255 characters since Argo CD
// 3.1). The goldens (testdata/golden/<cluster>/) are checked against Argo
// CD's types by internal/argocdcheck like the fixture's. The repository
// also sets owner actions, sync options per tier and namespace, and
// ignoreDifferences for every Application and for one namespace's.
func TestGenerateLongNames(t *testing.T) {
	const (
		cluster = "europe-west4-production-payments-platform-blue-green-a1-cluster"
		appNS   = "payments-ledger-reconciliation-and-settlement-batch-jobs-euprod"
		platNS  = "observability-prometheus-operator-and-alertmanager-stack-euprod"
	)
	for _, name := range []string{cluster, appNS, platNS} {
		if len(name) != 63 {
			t.Fatalf("%s: %d characters, want 63", name, len(name))
		}
	}
	cfg := `git:
  repoURL: https://example.com/gitops.git
clusters:
  ` + cluster + `:
    destination:
      name: in-cluster
namespaces:
  ` + appNS + `:
    owners: [team-payments]
    syncOptions: [PruneLast=true]
    ignoreDifferences:
      - {group: admissionregistration.k8s.io, kind: ValidatingWebhookConfiguration, jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle']}
  ` + platNS + `:
    tier: cluster
    syncOptions: [ServerSideApply=true, CreateNamespace=false]
argocd:
  sreGroups: [platform-sre]
  ownerActions: ["delete/*/Pod/*/*"]
  ignoreDifferences:
    - {group: apps, kind: Deployment, name: web, jsonPointers: [/spec/replicas]}
  tiers:
    cluster:
      syncOptions: [ServerSideApply=false]
    application:
      automated: true
      prune: true
      syncOptions: [ApplyOutOfSyncOnly=true]
`
	chart := []byte("apiVersion: v2\nname: x\nversion: 1.0.0\n")
	fsys := fstest.MapFS{
		"repotool.yaml":                                       {Data: []byte(cfg)},
		"namespaces/" + appNS + "/Chart.yaml":                 {Data: chart},
		"namespaces/" + platNS + "/Chart.yaml":                {Data: chart},
		"clusters/" + cluster + "/" + appNS + "/values.yaml":  {Data: []byte("a: 1\n")},
		"clusters/" + cluster + "/" + platNS + "/values.yaml": {Data: []byte("a: 1\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "golden", filepath.FromSlash(f.Path())), data)
		if p, ok := f.Object.(*argocd.AppProject); ok && len(p.Spec.Description) > argocd.MaxDescription {
			t.Errorf("%s: description of %d characters; Argo CD's CRD allows %d", f.Path(), len(p.Spec.Description), argocd.MaxDescription)
		}
	}
}

// TestGenerateSourcesGolden keeps testdata/golden-sources/<source>/ equal
// to what Generate makes for the fixture with argocd.source hydrated (a
// directory source on each cluster's hydrated branch, one folder per
// Application) and source-hydrator (spec.sourceHydrator: the plugin as
// dry source with the cluster's secrets mode, hydrateTo the -next
// branch). internal/argocdcheck validates them with Argo CD's types, CRD
// schema and the hydrator's checks.
func TestGenerateSourcesGolden(t *testing.T) {
	for _, source := range []string{config.SourceHydrated, config.SourceSourceHydrator} {
		repo := loadFixture(t)
		repo.Config.ArgoCD.Source = source
		repo.Config.ArgoCD.Hydrated = config.HydratedConfig{BranchPrefix: "environment/", HydrateTo: source == config.SourceSourceHydrator}
		repo.Config.Hydrate.Secrets = "sealed-secrets"
		files, err := argocd.Generate(repo, argocd.Options{})
		if err != nil {
			t.Fatal(err)
		}
		apps := 0
		for _, f := range files {
			data, err := f.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden-sources", source, filepath.FromSlash(f.Path())), data)
			app, ok := f.Object.(*argocd.Application)
			if !ok || app.Metadata.Name == argocd.RootName {
				continue
			}
			apps++
			switch source {
			case config.SourceHydrated:
				if s := app.Spec.Source; s == nil || s.Plugin != nil || s.Path != app.Metadata.Name || !strings.HasPrefix(s.TargetRevision, "environment/") {
					t.Errorf("%s: source %+v", f.Path(), s)
				}
			default:
				if sh := app.Spec.SourceHydrator; app.Spec.Source != nil || sh == nil || sh.DrySource.Plugin == nil || sh.SyncSource.Path != app.Metadata.Name || sh.HydrateTo.TargetBranch != sh.SyncSource.TargetBranch+"-next" {
					t.Errorf("%s: %+v", f.Path(), app.Spec)
				}
			}
		}
		if apps < 5 {
			t.Errorf("%s: %d Applications", source, apps)
		}
	}
}

// TestGenerateServerSideDiff: argocd.serverSideDiff gives every target's
// Application Argo CD's compare option, and nothing else changes.
func TestGenerateServerSideDiff(t *testing.T) {
	repo := loadFixture(t)
	plain, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo.Config.ArgoCD.ServerSideDiff = true
	files, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(plain) {
		t.Fatalf("%d files, %d without the option", len(files), len(plain))
	}
	apps := 0
	for i, f := range files {
		app, ok := f.Object.(*argocd.Application)
		if !ok || app.Metadata.Name == argocd.RootName {
			continue // the root deploys Applications, which no policy of the cluster mutates
		}
		apps++
		if got := app.Metadata.Annotations[argocd.CompareOptions]; got != "ServerSideDiff=true" {
			t.Errorf("%s: compare options %q", f.Path(), got)
		}
		delete(app.Metadata.Annotations, argocd.CompareOptions)
		a, _ := f.Bytes()
		b, _ := plain[i].Bytes()
		if string(a) != string(b) {
			t.Errorf("%s differs beyond the annotation", f.Path())
		}
	}
	if apps < 5 {
		t.Errorf("%d Applications", apps)
	}
}
