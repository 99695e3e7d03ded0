package scope_test

import (
	"cmp"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/scope"
)

// The refresh sets are where repotool and Argo CD's own code meet: this
// test writes, for every file of the fixture and for realistic commits,
// the Applications at the base revision (name, source path and
// manifest-generate-paths, as generate makes them), the Applications only
// the head revision has, the changed paths, and the Applications that
// diff's affected targets deploy. internal/argocdcheck asks Argo CD's
// GetAppRefreshPaths and AppFilesHaveChanged which of the base's
// Applications a commit with those paths refreshes, adds the new ones
// (which Argo CD renders for the first time), and requires the same set:
// an Application that diff says is affected but Argo CD would not
// refresh is a stale deploy.
const (
	refreshFile = "testdata/refresh.golden.json"
	fixture     = "../../testdata/monorepo"
)

type refreshApp struct {
	Name       string `json:"name"` // <cluster>/<application>
	SourcePath string `json:"sourcePath"`
	Paths      string `json:"manifestGeneratePaths"`
}

type refreshCase struct {
	Name    string   `json:"name"`
	Base    string   `json:"base"`
	Changed []string `json:"changed"` // relative to the Git repository's root
	New     []string `json:"new"`
	Refresh []string `json:"refresh"`
}

type refreshSets struct {
	Bases map[string][]refreshApp `json:"bases"`
	Cases []refreshCase           `json:"cases"`
}

// loadMap loads the repository in m.
func loadMap(t *testing.T, m fstest.MapFS) *layout.Repo {
	t.Helper()
	repo, err := layout.Load(context.Background(), m, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// with returns a copy of base changed by edit.
func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

// generated returns the Applications generate makes for repo, by
// <cluster>/<name>, and the target each deploys ("" for a root app).
func generated(t *testing.T, repo *layout.Repo) (map[string]refreshApp, map[string]string) {
	t.Helper()
	files, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	apps, targets := map[string]refreshApp{}, map[string]string{}
	for _, f := range files {
		app, ok := f.Object.(*argocd.Application)
		if !ok {
			continue
		}
		name := f.Cluster + "/" + app.Metadata.Name
		apps[name] = refreshApp{Name: name, SourcePath: app.Spec.Source.Path, Paths: app.Metadata.Annotations[argocd.ManifestGeneratePaths]}
		if p := app.Spec.Source.Plugin; p != nil {
			env := map[string]string{}
			for _, e := range p.Env {
				env[e.Name] = e.Value
			}
			targets[name] = env["CLUSTER"] + "/" + env["NAMESPACE"]
		}
	}
	return apps, targets
}

func TestRefreshSets(t *testing.T) {
	fixtureMap := testtool.MapFS(t, fixture)
	gitPath := func(m fstest.MapFS) fstest.MapFS {
		return testtool.Edited(m, func(m fstest.MapFS) {
			m["repotool.yaml"].Data = []byte(strings.Replace(string(m["repotool.yaml"].Data), "  revision: main\n", "  revision: main\n  path: deploy/gitops\n", 1))
		})
	}
	linked := testtool.Edited(fixtureMap, func(m fstest.MapFS) {
		m["shared/prod-values-c.yaml"] = file("replicas: 2\n")
		m["shared/templates/extra.yaml"] = file("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n")
		m["clusters/prod-cluster/namespace-b/prod-values-shared.yaml"] = link("../../../shared/prod-values-c.yaml")
		m["namespaces/namespace-c/templates/extra.yaml"] = link("../../../shared/templates/extra.yaml")
	})
	// Two namespaces share a chart (one with a folder of common values,
	// one without); prod-cluster has cluster-wide values; dev-cluster's
	// hub-b lists its values, one of them in a shared folder.
	sharedChart := testtool.Edited(fixtureMap, func(m fstest.MapFS) {
		cfg := strings.Replace(string(m["repotool.yaml"].Data), "namespaces:\n", "namespaces:\n  hub-a: {chart: charts/hub}\n  hub-b: {chart: charts/hub}\n", 1)
		cfg = strings.Replace(cfg, "clusters:\n", "layout:\n  clusterWideValues: ['values-*.yaml']\nclusters:\n", 1)
		cfg = strings.Replace(cfg, "  dev-cluster:\n", "  dev-cluster:\n    values:\n      hub-b: [config/hub.yaml, 'clusters/{cluster}/hub-b/b.yaml']\n", 1)
		m["repotool.yaml"].Data = []byte(cfg)
		m["charts/hub/Chart.yaml"] = file("apiVersion: v2\nname: hub\nversion: 0.1.0\n")
		m["charts/hub/templates/cm.yaml"] = file("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hub\n")
		m["namespaces/hub-a/common-values-hub.yaml"] = file("a: 1\n")
		m["config/hub.yaml"] = file("c: 1\n")
		m["clusters/prod-cluster/values-global.yaml"] = file("g: 1\n")
		for _, t := range []string{"dev-cluster/hub-a", "prod-cluster/hub-a", "prod-cluster/hub-b"} {
			m["clusters/"+t+"/values.yaml"] = file("b: 1\n")
		}
		m["clusters/dev-cluster/hub-b/b.yaml"] = file("b: 2\n")
	})
	bases := map[string]fstest.MapFS{"fixture": fixtureMap, "with links": linked, "in deploy/gitops": gitPath(fixtureMap), "shared chart": sharedChart}

	type commit struct {
		name, base string
		// edit makes the head revision; changed are the paths it changes.
		edit    func(fstest.MapFS)
		changed []string
		prefix  string // the repository's folder in Git
	}
	touch := func(paths ...string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			for _, p := range paths {
				if m[p] == nil {
					m[p] = file("# new\n")
				} else {
					m[p].Data = append(m[p].Data, "\n# changed\n"...)
				}
			}
		}
	}
	remove := func(prefix string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			for p := range m {
				if strings.HasPrefix(p, prefix) {
					delete(m, p)
				}
			}
		}
	}
	under := func(m fstest.MapFS, prefix string) []string {
		var out []string
		for p := range m {
			if strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	commits := []commit{
		{name: "a cluster values file", edit: touch("clusters/dev-cluster/namespace-a/dev-values-a.yaml"), changed: []string{"clusters/dev-cluster/namespace-a/dev-values-a.yaml"}},
		{name: "a cluster secret values file", edit: touch("clusters/prod-cluster/namespace-b/prod-values-b.secret.yaml"), changed: []string{"clusters/prod-cluster/namespace-b/prod-values-b.secret.yaml"}},
		{name: "a common values file", edit: touch("namespaces/namespace-b/common-values-b.yaml"), changed: []string{"namespaces/namespace-b/common-values-b.yaml"}},
		{name: "a chart template", edit: touch("namespaces/namespace-c/templates/deployment.yaml"), changed: []string{"namespaces/namespace-c/templates/deployment.yaml"}},
		{name: "a CRD of a cluster-tier chart", edit: touch("namespaces/cert-manager/crds/certificates.cert-manager.io.yaml"), changed: []string{"namespaces/cert-manager/crds/certificates.cert-manager.io.yaml"}},
		{name: "a file:// dependency", edit: touch("charts/common/templates/_deployment.tpl"), changed: []string{"charts/common/templates/_deployment.tpl"}},
		{name: "a new values file", edit: touch("clusters/dev-cluster/namespace-c/dev-values-c-extra.yaml"), changed: []string{"clusters/dev-cluster/namespace-c/dev-values-c-extra.yaml"}},
		{name: "a stray file in a target folder", edit: touch("clusters/dev-cluster/namespace-c/notes.txt"), changed: []string{"clusters/dev-cluster/namespace-c/notes.txt"}},
		{name: "repotool.yaml", edit: touch("repotool.yaml"), changed: []string{"repotool.yaml"}},
		{name: ".sops.yaml", edit: touch(".sops.yaml"), changed: []string{".sops.yaml"}},
		{name: "repotool.sum appears", edit: touch("repotool.sum"), changed: []string{"repotool.sum"}},
		{name: "the README", edit: touch("README.md"), changed: []string{"README.md"}},
		{name: "a generated file", edit: touch("argocd/dev-cluster/application-namespace-a.yaml"), changed: []string{"argocd/dev-cluster/application-namespace-a.yaml"}},
		{name: "a new namespace", edit: func(m fstest.MapFS) {
			m["namespaces/namespace-d/Chart.yaml"] = file("apiVersion: v2\nname: namespace-d\nversion: 0.1.0\n")
			m["namespaces/namespace-d/templates/cm.yaml"] = file("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n")
			m["clusters/dev-cluster/namespace-d/dev-values-d.yaml"] = file("a: 1\n")
		}, changed: []string{"clusters/dev-cluster/namespace-d/dev-values-d.yaml", "namespaces/namespace-d/Chart.yaml", "namespaces/namespace-d/templates/cm.yaml"}},
		{name: "a removed cluster", edit: remove("clusters/prod-cluster/"), changed: under(fixtureMap, "clusters/prod-cluster/")},
		{name: "a removed namespace", edit: remove("clusters/dev-cluster/namespace-c/"), changed: under(fixtureMap, "clusters/dev-cluster/namespace-c/")},
		{name: "a link target", base: "with links", edit: touch("shared/prod-values-c.yaml"), changed: []string{"shared/prod-values-c.yaml"}},
		{name: "a linked template", base: "with links", edit: touch("shared/templates/extra.yaml"), changed: []string{"shared/templates/extra.yaml"}},
		{name: "a file next to a link target", base: "with links", edit: touch("shared/other.yaml"), changed: []string{"shared/other.yaml"}},
		{name: "a cluster values file, repository in a Git subfolder", base: "in deploy/gitops", prefix: "deploy/gitops", edit: touch("clusters/dev-cluster/namespace-a/dev-values-a.yaml"), changed: []string{"clusters/dev-cluster/namespace-a/dev-values-a.yaml"}},
		{name: "a shared chart's template", base: "shared chart", edit: touch("charts/hub/templates/cm.yaml"), changed: []string{"charts/hub/templates/cm.yaml"}},
		{name: "a new common values file of a shared-chart namespace", base: "shared chart", edit: touch("namespaces/hub-b/common-values-hub.yaml"),
			changed: []string{"namespaces/hub-b/common-values-hub.yaml"}},
		{name: "a new cluster-wide values file", base: "shared chart", edit: touch("clusters/dev-cluster/values-new.yaml"),
			changed: []string{"clusters/dev-cluster/values-new.yaml"}},
		{name: "a cluster-wide values file", base: "shared chart", edit: touch("clusters/prod-cluster/values-global.yaml"),
			changed: []string{"clusters/prod-cluster/values-global.yaml"}},
		{name: "a listed values file", base: "shared chart", edit: touch("config/hub.yaml"), changed: []string{"config/hub.yaml"}},
		{name: "a file a values list leaves out", base: "shared chart", edit: touch("clusters/dev-cluster/hub-b/values.yaml"),
			changed: []string{"clusters/dev-cluster/hub-b/values.yaml"}},
		{name: "a file:// dependency, repository in a Git subfolder", base: "in deploy/gitops", prefix: "deploy/gitops", edit: touch("charts/common/values.yaml"), changed: []string{"charts/common/values.yaml"}},
	}
	// Every file of the fixture, changed alone.
	for _, p := range slices.Sorted(maps.Keys(fixtureMap)) {
		commits = append(commits, commit{name: "every file: " + p, edit: touch(p), changed: []string{p}})
	}

	out := refreshSets{Bases: map[string][]refreshApp{}}
	for name, m := range bases {
		apps, _ := generated(t, loadMap(t, m))
		for _, n := range slices.Sorted(maps.Keys(apps)) {
			out.Bases[name] = append(out.Bases[name], apps[n])
		}
	}
	total := len(out.Bases["fixture"])
	for _, c := range commits {
		baseName := cmp.Or(c.base, "fixture")
		base := loadMap(t, bases[baseName])
		head := loadMap(t, testtool.Edited(bases[baseName], c.edit))
		baseApps, baseTargets := generated(t, base)
		headApps, headTargets := generated(t, head)
		affected := map[string]bool{}
		for _, a := range scope.Affected(base, head, c.changed) {
			affected[a.Name] = true
		}
		rc := refreshCase{Name: c.name, Base: baseName, New: []string{}, Refresh: []string{}}
		for _, p := range c.changed {
			rc.Changed = append(rc.Changed, path.Join(c.prefix, p))
		}
		for _, apps := range []struct {
			apps    map[string]refreshApp
			targets map[string]string
		}{{baseApps, baseTargets}, {headApps, headTargets}} {
			for name := range apps.apps {
				cluster, _, _ := strings.Cut(name, "/")
				root := apps.targets[name] == ""
				// A root application deploys its cluster's generated folder.
				if affected[apps.targets[name]] || root && slices.ContainsFunc(c.changed, func(p string) bool { return strings.HasPrefix(p, path.Join(argocd.DefaultOutputDir, cluster)+"/") }) {
					rc.Refresh = append(rc.Refresh, name)
				}
				if _, inBase := baseApps[name]; !inBase {
					rc.New = append(rc.New, name)
				}
			}
		}
		rc.Refresh = append([]string{}, slices.Compact(slices.Sorted(slices.Values(rc.Refresh)))...)
		rc.New = append([]string{}, slices.Compact(slices.Sorted(slices.Values(rc.New)))...)
		if len(rc.Refresh) == 0 && !strings.HasPrefix(c.name, "every file") && !slices.Contains([]string{"the README", "a file next to a link target"}, c.name) {
			t.Errorf("%s: no Application refreshes", c.name)
		}
		if c.name == "a cluster values file" && (len(rc.Refresh) != 2 || total < 10) {
			t.Errorf("%s: refreshes %v of %d Applications, want the target's two", c.name, rc.Refresh, total)
		}
		out.Cases = append(out.Cases, rc)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, refreshFile, append(data, '\n'))
}
