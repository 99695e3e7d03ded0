package layout_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
)

const appsConfig = "git:\n  repoURL: https://github.com/org/gitops.git\n" +
	"clusters:\n  prod:\n    destination:\n      server: https://prod.example.com\n  dev: {}\n" +
	"applications:\n  paths: [\"argocd/**/*.yaml\"]\n"

// app is an Application document deploying the chart at charts/web to
// dest, with helm settings (indented under helm:), or none.
func app(name, dest, helm string) string {
	s := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\nspec:\n  project: default\n" +
		"  destination:\n    " + dest + "\n    namespace: web\n" +
		"  source:\n    repoURL: https://github.com/org/gitops\n    path: charts/web\n"
	if helm != "" {
		s += "    helm:\n      " + strings.ReplaceAll(strings.TrimSuffix(helm, "\n"), "\n", "\n      ") + "\n"
	}
	return s
}

func appsRepo(apps string, extra map[string]string) map[string]string {
	files := map[string]string{
		"repotool.yaml":               appsConfig,
		"charts/web/Chart.yaml":       chart,
		"charts/web/values-prod.yaml": "a: 1\n",
		"argocd/apps.yaml":            apps,
	}
	for p, c := range extra {
		files[p] = c
	}
	return files
}

// TestApplicationTargets: each Application is a target of the cluster its
// destination names (by server, or by name, in-cluster being the
// in-cluster server's), with its chart, values files resolved from the
// chart folder (or the root, from "/"), release name and namespace; two
// may share a namespace; an Application's file is among its inputs.
func TestApplicationTargets(t *testing.T) {
	repo := load(t, appsRepo(app("web", "server: https://prod.example.com", "valueFiles: [values-prod.yaml, /envs/web.yaml, missing.yaml]\n"+
		"ignoreMissingValueFiles: true\nreleaseName: site")+"---\n"+app("web-canary", "name: in-cluster", "namespace: canary"),
		map[string]string{"envs/web.yaml": "b: 2\n"}))
	if len(repo.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", repo.Diagnostics)
	}
	var got []string
	for _, tg := range repo.Targets {
		var vals []string
		for _, v := range tg.Values {
			vals = append(vals, v.Path)
		}
		got = append(got, fmt.Sprintf("%s ns=%s release=%s chart=%s app=%s:%d values=%v", tg.Name(), tg.Namespace, tg.ReleaseName(), tg.ChartDir,
			tg.App.File, tg.App.Line, vals))
	}
	want := []string{
		"dev/web-canary ns=canary release=web-canary chart=charts/web app=argocd/apps.yaml:18 values=[]",
		"prod/web ns=web release=site chart=charts/web app=argocd/apps.yaml:1 values=[charts/web/values-prod.yaml envs/web.yaml]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	prod, ok := repo.Target("prod", "web")
	if !ok {
		t.Fatal("no target prod/web")
	}
	if diff := cmp.Diff([]string{".sops.yaml", "argocd/apps.yaml", "charts/web", "envs/web.yaml", "repotool.sum", "repotool.yaml"}, repo.Inputs(prod)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	for _, cl := range repo.Clusters {
		if !cl.FromApps || cl.Dir != "" {
			t.Errorf("cluster %s: FromApps %v, dir %q: only Applications name it", cl.Name, cl.FromApps, cl.Dir)
		}
	}
}

// TestApplicationProblems: what an Application cannot be followed by is a
// diagnostic at its file and line; an Application whose cluster is known
// stays a target that fails (every command fails it), one whose
// destination is no single cluster's is no target at all.
func TestApplicationProblems(t *testing.T) {
	prod := "server: https://prod.example.com"
	cases := []struct {
		name   string
		apps   string
		extra  map[string]string
		config string
		code   layout.Code
		line   int
		target bool   // the Application is still a (failing) target
		msg    string // in the message
	}{
		{"unknown destination", app("web", "server: https://elsewhere", ""), nil, "", layout.CodeDestinationUnknown, 7, false, "no cluster"},
		{"unknown name", app("web", "name: staging", ""), nil, "", layout.CodeDestinationUnknown, 7, false, "name staging"},
		{"ApplicationSet without spec", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\n", nil, "", layout.CodeApplicationInvalid, 1,
			false, "ApplicationSet has no spec"},
		{"ApplicationSet of pull requests", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n  generators:\n" +
			"    - pullRequest:\n        github: {owner: org, repo: gitops}\n  template: {metadata: {name: x}}\n", nil, "", layout.CodeApplicationUnsupported, 7,
			false, "pullRequest generator lists the open pull requests"},
		{"sources not a list", strings.Replace(app("web", prod, ""), "  source:\n", "  sources:\n", 1), nil, "", layout.CodeApplicationInvalid, 11, false,
			"cannot unmarshal"},
		{"sources that both render", strings.Replace(app("web", prod, ""), "  source:\n    repoURL: https://github.com/org/gitops\n    path: charts/web\n",
			"  sources:\n    - repoURL: https://github.com/org/gitops\n      path: charts/web\n    - repoURL: https://github.com/org/gitops\n      path: charts/web\n", 1),
			nil, "", layout.CodeApplicationUnsupported, 13, true, "several sources render"},
		{"ref of another repository", strings.Replace(app("web", prod, ""), "  source:\n    repoURL: https://github.com/org/gitops\n    path: charts/web\n",
			"  sources:\n    - repoURL: https://github.com/org/values\n      ref: values\n    - repoURL: https://github.com/org/gitops\n      path: charts/web\n"+
				"      helm:\n        valueFiles: [$values/v.yaml]\n", 1), nil, "", layout.CodeApplicationInvalid, 16, true, "source $values: its source is another repository"},
		{"remote chart", strings.Replace(app("web", prod, ""), "    path: charts/web\n", "    chart: web\n", 1), nil, "", layout.CodeApplicationUnsupported, 12,
			true, "chart repository"},
		{"plugin", app("web", prod, "") + "    plugin:\n      name: x\n", nil, "", layout.CodeApplicationUnsupported, 13, true, "runs a program"},
		{"directory", strings.Replace(app("web", prod, ""), "charts/web", "manifests", 1), map[string]string{"manifests/cm.yaml": "kind: ConfigMap\n"}, "",
			layout.CodeApplicationUnsupported, 12, true, "plain manifests"},
		{"kustomize", strings.Replace(app("web", prod, ""), "charts/web", "kust", 1), map[string]string{"kust/kustomization.yaml": "resources: []\n"}, "",
			layout.CodeApplicationUnsupported, 12, true, "kustomization"},
		{"path missing", strings.Replace(app("web", prod, ""), "charts/web", "gone", 1), nil, "", layout.CodeApplicationUnsupported, 12, true, "does not exist"},
		{"path leaves", strings.Replace(app("web", prod, ""), "charts/web", "../web", 1), nil, "", layout.CodeApplicationInvalid, 12, true, "leaves"},
		{"parameter overrides", app("web", prod, ""), map[string]string{"charts/web/.argocd-source-web.yaml": "helm: {}\n"}, "",
			layout.CodeApplicationUnsupported, 12, true, ".argocd-source-web.yaml"},
		{"other repository", strings.Replace(app("web", prod, ""), "org/gitops", "org/other", 1), nil, "", layout.CodeApplicationUnsupported, 11, true,
			"another repository"},
		{"no git.repoURL", app("web", prod, ""), nil, strings.Replace(appsConfig, "https://github.com/org/gitops.git", `""`, 1),
			layout.CodeApplicationUnsupported, 11, true, "git.repoURL is not set"},
		{"values file missing", app("web", prod, "valueFiles: [nope.yaml]"), nil, "", layout.CodeApplicationInvalid, 14, true, "nope.yaml"},
		{"values file from the network", app("web", prod, "valueFiles: [https://example.com/v.yaml]"), nil, "", layout.CodeApplicationInvalid, 14, true,
			"from the network"},
		{"values file leaves", app("web", prod, "valueFiles: [../../../x.yaml]"), nil, "", layout.CodeApplicationInvalid, 14, true, "leaves the repository"},
		{"values file of a ref", app("web", prod, "valueFiles: [$values/x.yaml]"), nil, "", layout.CodeApplicationInvalid, 14, true, "no source of the Application has ref values"},
		{"values glob of nothing", app("web", prod, "valueFiles: [\"envs/*.yaml\"]"), nil, "", layout.CodeApplicationInvalid, 14, true, "matches no file"},
		{"revision in a parameter", app("web", prod, "parameters: [{name: rev, value: $ARGOCD_APP_REVISION}]"), nil, "", layout.CodeApplicationInvalid, 14, true,
			"revision"},
		{"helm v2", app("web", prod, "version: v2"), nil, "", layout.CodeApplicationInvalid, 14, true, "Helm v3"},
		{"unknown helm field", app("web", prod, "valueFile: x.yaml"), nil, "", layout.CodeApplicationUnsupported, 14, true, "valueFile"},
		{"file parameter missing", app("web", prod, "fileParameters:\n  - {name: motd, path: missing.txt}"), nil, "", layout.CodeApplicationInvalid, 15, true,
			"helm.fileParameters motd (\"missing.txt\"): cannot be read"},
		{"file parameter glob", app("web", prod, "fileParameters:\n  - {name: motd, path: '*.txt'}"), nil, "", layout.CodeApplicationInvalid, 15, true,
			"a glob"},
		{"file parameter of helm-secrets", app("web", prod, "fileParameters:\n  - {name: motd, path: 'secrets://m.txt'}"), nil, "", layout.CodeApplicationInvalid, 15,
			true, "secrets://"},
		{"no name", strings.Replace(app("web", prod, ""), "name: web", "labels: {}", 1), nil, "", layout.CodeApplicationInvalid, 1, false, "metadata.name"},
		{"not YAML", "apiVersion: argoproj.io/v1alpha1\nkind: [Application\n", nil, "", layout.CodeApplicationInvalid, 2, false, "cannot read the file"},
		{"duplicate", app("web", prod, "") + "---\n" + app("web", prod, ""), nil, "", layout.CodeApplicationInvalid, 14, true, "as the one at argocd/apps.yaml:1"},
		{"a folder's target", app("shop", prod, ""), map[string]string{"namespaces/shop/Chart.yaml": chart, "clusters/prod/shop/values.yaml": "a: 1\n"}, "",
			layout.CodeTargetConflict, 1, false, "both target prod/shop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := appsRepo(c.apps, c.extra)
			if c.config != "" {
				files["repotool.yaml"] = c.config
			}
			repo := load(t, files)
			var found *layout.Diagnostic
			for i, d := range repo.Diagnostics {
				if d.File == "argocd/apps.yaml" && d.Code == c.code {
					found = &repo.Diagnostics[i]
				}
			}
			if found == nil || found.Line != c.line || found.Severity != layout.SeverityError || !strings.Contains(found.Message, c.msg) {
				t.Fatalf("want an error %s at line %d saying %q; got %v", c.code, c.line, c.msg, repo.Diagnostics)
			}
			if repo.Err() == nil {
				t.Error("the repository has no error")
			}
			var failing int
			for _, tg := range repo.Targets {
				if tg.App != nil && tg.Err() != nil {
					failing++
				}
			}
			if c.target && failing == 0 {
				t.Errorf("no failing target of the Application: %v", repo.Targets)
			}
			if !c.target && failing != 0 {
				t.Errorf("a target of an Application with no single cluster: %v", repo.Targets)
			}
			if !c.target && repo.ErrorsOutside("") == nil {
				t.Error("an error no target carries must fail commands over every target")
			}
		})
	}
}

// TestApplicationClusterFolder: in a repository of one Argo CD per cluster,
// every Application says the in-cluster server; applications.paths'
// {cluster} folder says whose it is. Without it, the destination is
// ambiguous, an error: never a guessed cluster.
func TestApplicationClusterFolder(t *testing.T) {
	cfg := "git:\n  repoURL: https://github.com/org/gitops.git\nclusters:\n  prod: {}\n  dev: {}\napplications:\n  paths: [%q]\n"
	apps := app("web", "server: https://kubernetes.default.svc", "")
	files := map[string]string{"charts/web/Chart.yaml": chart, "argocd/prod/web.yaml": apps, "argocd/dev/web.yaml": apps, "argocd/web.yaml": apps}

	files["repotool.yaml"] = fmt.Sprintf(cfg, "argocd/{cluster}/*.yaml")
	repo := load(t, files)
	var names []string
	for _, tg := range repo.Targets {
		names = append(names, tg.Name()+" "+tg.App.File)
	}
	if diff := cmp.Diff([]string{"dev/web argocd/dev/web.yaml", "prod/web argocd/prod/web.yaml"}, names); diff != "" || len(repo.Diagnostics) != 0 {
		t.Errorf("targets (-want +got):\n%s\ndiagnostics: %v", diff, repo.Diagnostics)
	}

	files["repotool.yaml"] = fmt.Sprintf(cfg, "argocd/*.yaml")
	repo = load(t, files)
	if err := repo.Err(); len(repo.Targets) != 0 || err == nil || !strings.Contains(err.Error(), "[destination-unknown]") ||
		!strings.Contains(err.Error(), "clusters dev, prod") {
		t.Errorf("an in-cluster destination of two clusters: targets %v, diagnostics %v", repo.Targets, repo.Diagnostics)
	}
}

// FuzzApplications: no Application file makes the load fail or panic;
// every problem in it is a diagnostic at that file, and every
// Application target has a cluster repotool knows and an Application.
func FuzzApplications(f *testing.F) {
	prod := "server: https://prod.example.com"
	for _, seed := range []string{
		app("web", prod, "valueFiles: [values-prod.yaml]\nparameters: [{name: a, value: 'x,y'}]\nvaluesObject: {a: 1}"),
		app("web", "name: in-cluster", "values: |\n  a: 1\nreleaseName: r"),
		strings.Replace(app("web", prod, ""), "  source:\n", "  sources:\n", 1),
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: [x]\nspec: 1\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec: {source: {helm: {valuesObject: *x}}}\n",
		"&a [*a]", "--- !!binary AAAA\n", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		repo, err := layout.Load(context.Background(), mapFS(appsRepo(doc, nil)), layout.Options{})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		for _, d := range repo.Diagnostics {
			if strings.HasPrefix(string(d.Code), "application") && d.File != "argocd/apps.yaml" {
				t.Errorf("%v is not at the Applications' file", d)
			}
		}
		for _, tg := range repo.Targets {
			if _, ok := repo.Cluster(tg.Cluster); !ok || tg.App == nil {
				t.Errorf("target %s: cluster known %v, Application %v", tg.Name(), ok, tg.App)
			}
		}
	})
}

// TestApplicationsIgnoredAndOnly: a file of Applications Git ignores is no
// target's (a git-ignored warning says so, as for a values file), and a
// load of one target reads only its Application, not another's problem.
func TestApplicationsIgnoredAndOnly(t *testing.T) {
	prod := "server: https://prod.example.com"
	files := appsRepo(app("web", prod, "")+"---\n"+app("broken", "server: https://nowhere", ""), nil)
	repo, err := layout.Load(context.Background(), mapFS(files), layout.Options{Ignored: func(p string) bool { return p == "argocd/apps.yaml" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.Targets) != 0 || repo.Err() != nil || !slicesContainsCode(repo.Diagnostics, layout.CodeGitIgnored) {
		t.Errorf("an ignored file of Applications: targets %v, diagnostics %v", repo.Targets, repo.Diagnostics)
	}
	repo, err = layout.Load(context.Background(), mapFS(files), layout.Options{Only: &layout.TargetRef{Cluster: "prod", Namespace: "web"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.Targets) != 1 || repo.Targets[0].Name() != "prod/web" || repo.Err() != nil {
		t.Errorf("one target's load: targets %v, diagnostics %v", repo.Targets, repo.Diagnostics)
	}
}

func slicesContainsCode(ds []layout.Diagnostic, c layout.Code) bool {
	for _, d := range ds {
		if d.Code == c {
			return true
		}
	}
	return false
}

// TestApplicationUnknownClusterFolder: a {cluster} folder of no cluster
// repotool knows (a typo) makes no cluster: an error, not a guess.
func TestApplicationUnknownClusterFolder(t *testing.T) {
	files := map[string]string{
		"repotool.yaml":         "git:\n  repoURL: https://github.com/org/gitops.git\nclusters:\n  prod: {}\napplications:\n  paths: [\"argocd/{cluster}/*.yaml\"]\n",
		"charts/web/Chart.yaml": chart,
		"argocd/prdo/web.yaml":  app("web", "server: https://kubernetes.default.svc", ""),
	}
	repo := load(t, files)
	if err := repo.Err(); len(repo.Targets) != 0 || len(repo.Clusters) != 0 || err == nil || !strings.Contains(err.Error(), `cluster "prdo"`) {
		t.Errorf("targets %v, clusters %v, error %v", repo.Targets, repo.Clusters, err)
	}
}

// TestApplicationValuesGlob: a glob of valueFiles is expanded in lexical
// order, leaving out the files listed by name, which keep their own place
// (Argo CD 3.6); one that matches nothing is left out with
// ignoreMissingValueFiles.
func TestApplicationValuesGlob(t *testing.T) {
	repo := load(t, appsRepo(app("web", "server: https://prod.example.com",
		"valueFiles: [\"values/*.yaml\", values/a.yaml, \"none/*.yaml\", \"/envs/*.yaml\", \"/deep/**/*.yaml\"]\nignoreMissingValueFiles: true"),
		map[string]string{"charts/web/values/a.yaml": "a: 1\n", "charts/web/values/b.yaml": "b: 1\n", "charts/web/values/c.yaml": "c: 1\n",
			"envs/one.yaml": "d: 1\n"}))
	if len(repo.Targets) != 1 || repo.Err() != nil {
		t.Fatalf("targets %v, diagnostics %v", repo.Targets, repo.Diagnostics)
	}
	var got []string
	for _, v := range repo.Targets[0].Values {
		got = append(got, v.Path)
	}
	if diff := cmp.Diff([]string{"charts/web/values/b.yaml", "charts/web/values/c.yaml", "charts/web/values/a.yaml", "envs/one.yaml"}, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	// A file added that a glob matches changes the target.
	in := repo.Inputs(&repo.Targets[0])
	for _, added := range []string{"envs/two.yaml", "deep/a/b/x.yaml"} {
		if !slices.ContainsFunc(in, func(i string) bool { return layout.InputHolds(i, added) }) {
			t.Errorf("inputs %v do not hold %s", in, added)
		}
	}
}
