package layout_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

const chart = "apiVersion: v2\nname: app\nversion: 0.1.0\n"

// encrypted is a minimal SOPS-encrypted document (layout only detects).
const encrypted = `secrets:
  db:
    password: ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]
sops:
  age:
    - recipient: age1qqqq
      enc: x
  mac: ENC[AES256_GCM,data:DDDD,iv:EEEE,tag:FFFF,type:str]
  version: 3.13.3
`

// mapFS builds a file system from path -> content. A content starting with
// "symlink:" makes a symbolic link to the rest.
func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, c := range files {
		if t, ok := strings.CutPrefix(c, "symlink:"); ok {
			m[p] = &fstest.MapFile{Data: []byte(t), Mode: fs.ModeSymlink}
			continue
		}
		if strings.HasSuffix(p, "/") {
			m[strings.TrimSuffix(p, "/")] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(c)}
	}
	return m
}

func load(t *testing.T, files map[string]string) *layout.Repo {
	t.Helper()
	repo, err := layout.Load(context.Background(), mapFS(files), layout.Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return repo
}

// diag is the comparable part of a diagnostic.
type diag struct {
	Severity layout.Severity
	Code     layout.Code
	File     string
	Line     int
}

func diags(r *layout.Repo) []diag {
	out := []diag{}
	for _, d := range r.Diagnostics {
		out = append(out, diag{d.Severity, d.Code, d.File, d.Line})
	}
	return out
}

func TestLoadTargetsAndMergeOrder(t *testing.T) {
	repo := load(t, map[string]string{
		"namespaces/shop/Chart.yaml":                     chart,
		"namespaces/shop/values.yaml":                    "replicas: 1\n", // chart default, not a values file
		"namespaces/shop/common-values-b.yaml":           "a: 1\n",
		"namespaces/shop/common-values-a.yaml":           "a: 2\n",
		"namespaces/shop/common-values-z.secret.yaml":    encrypted,
		"namespaces/shop/common-values-a.secret.yaml":    encrypted,
		"namespaces/shop/templates/deploy.yaml":          "kind: Deployment\n",
		"namespaces/shop/README.md":                      "# shop\n",
		"clusters/prod/shop/prod-values-x.secret.yaml":   encrypted,
		"clusters/prod/shop/prod-values-x.yaml":          "b: 1\n",
		"clusters/prod/shop/prod-values-a.yaml":          "b: 2\n",
		"clusters/dev/shop/dev-values.yaml":              "",
		"clusters/dev/README.md":                         "dev cluster\n",
		"namespaces/infra/Chart.yaml":                    chart,
		"clusters/dev/infra/dev-values-infra.yaml":       "c: 1\n",
		"namespaces/infra/common-values-infra.yaml":      "# only a comment\n",
		"namespaces/infra/common-values-infra.json":      "{}",
		"namespaces/infra/charts/common/Chart.yaml":      chart,
		"namespaces/infra/charts/common/values.yaml":     "x: 1\n",
		"clusters/prod/shop/notes.txt":                   "not yaml, not a values file",
		"namespaces/infra/common-values-infra-2.yml":     "d: 1\n",
		"clusters/dev/infra/dev-values-infra.secret.yml": encrypted,
	})
	if d := diags(repo); len(d) != 0 {
		t.Fatalf("unexpected diagnostics: %v", repo.Diagnostics)
	}
	var got []string
	for _, tg := range repo.Targets {
		got = append(got, tg.Name())
		for _, v := range tg.Values {
			got = append(got, "  "+v.Path)
		}
	}
	want := []string{
		"dev/infra",
		"  namespaces/infra/common-values-infra-2.yml",
		"  namespaces/infra/common-values-infra.yaml",
		"  clusters/dev/infra/dev-values-infra.yaml",
		"  clusters/dev/infra/dev-values-infra.secret.yml",
		"dev/shop",
		"  namespaces/shop/common-values-a.yaml",
		"  namespaces/shop/common-values-b.yaml",
		"  namespaces/shop/common-values-a.secret.yaml",
		"  namespaces/shop/common-values-z.secret.yaml",
		"  clusters/dev/shop/dev-values.yaml",
		"prod/shop",
		"  namespaces/shop/common-values-a.yaml",
		"  namespaces/shop/common-values-b.yaml",
		"  namespaces/shop/common-values-a.secret.yaml",
		"  namespaces/shop/common-values-z.secret.yaml",
		"  clusters/prod/shop/prod-values-a.yaml",
		"  clusters/prod/shop/prod-values-x.yaml",
		"  clusters/prod/shop/prod-values-x.secret.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets and merge order (-want +got):\n%s", diff)
	}
	tg, ok := repo.Target("prod", "shop")
	if !ok {
		t.Fatal("Target(prod, shop) not found")
	}
	if tg.Values[3].Scope != layout.ScopeCommon || !tg.Values[3].Secret || tg.Values[6].Scope != layout.ScopeCluster || !tg.Values[6].Secret {
		t.Errorf("scope/secret classification wrong: %+v", tg.Values)
	}
	if tg.ChartDir != "namespaces/shop" || tg.Dir != "clusters/prod/shop" || tg.Tier != config.TierApplication {
		t.Errorf("target fields: %+v", tg)
	}
	if tg.KubeVersion != config.DefaultKubeVersion {
		t.Errorf("KubeVersion = %q, want default %q", tg.KubeVersion, config.DefaultKubeVersion)
	}
	ns, _ := repo.Namespace("shop")
	if diff := cmp.Diff([]string{"dev", "prod"}, ns.Clusters); diff != "" {
		t.Errorf("namespace clusters (-want +got):\n%s", diff)
	}
	if ns.Chart == nil || ns.Chart.Name != "app" || ns.Chart.Version != "0.1.0" {
		t.Errorf("chart = %+v", ns.Chart)
	}
	cl, _ := repo.Cluster("dev")
	if diff := cmp.Diff([]string{"infra", "shop"}, cl.Namespaces); diff != "" {
		t.Errorf("cluster namespaces (-want +got):\n%s", diff)
	}
	if cl.Destination.Server != "https://kubernetes.default.svc" {
		t.Errorf("default destination = %+v", cl.Destination)
	}
	if _, ok := repo.Target("dev", "nope"); ok {
		t.Error("Target(dev, nope) found")
	}
}

func TestSymlinkedFilesAreUsed(t *testing.T) {
	repo := load(t, map[string]string{
		"namespaces/app/Chart.yaml":     chart,
		"shared/values-common.yaml":     "a: 1\n",
		"clusters/c1/app/values-b.yaml": "symlink:../../../shared/values-common.yaml",
		"clusters/c2":                   "symlink:c1",
	})
	var got []string
	for _, tg := range repo.Targets {
		got = append(got, tg.Name())
	}
	if diff := cmp.Diff([]string{"c1/app", "c2/app"}, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if v := repo.Targets[1].Values; len(v) != 1 || v[0].Path != "clusters/c2/app/values-b.yaml" {
		t.Errorf("values listed under the link's own path: %+v", v)
	}
}

func TestSecretParseErrorDoesNotQuoteContent(t *testing.T) {
	repo := load(t, map[string]string{
		"namespaces/app/Chart.yaml":            chart,
		"clusters/c1/app/values-a.secret.yaml": "password: \"hunter2\n\tother: `hunter3`\n",
	})
	if len(repo.Diagnostics) == 0 {
		t.Fatal("no diagnostic for a broken secret file")
	}
	for _, d := range repo.Diagnostics {
		if strings.Contains(d.String(), "hunter") {
			t.Errorf("diagnostic quotes secret content: %s", d)
		}
	}
}

func TestLoadNotARepository(t *testing.T) {
	_, err := layout.Load(context.Background(), mapFS(map[string]string{"README.md": "hi"}), layout.Options{})
	if !errors.Is(err, layout.ErrNotRepository) {
		t.Fatalf("err = %v, want ErrNotRepository", err)
	}
	if !strings.Contains(err.Error(), "namespaces/") {
		t.Errorf("error does not say what is missing: %v", err)
	}
}

func TestLoadDirErrors(t *testing.T) {
	if _, err := layout.LoadDir(context.Background(), t.TempDir()+"/missing", layout.Options{}); err == nil {
		t.Error("LoadDir of a missing folder succeeded")
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := layout.Load(ctx, mapFS(map[string]string{"namespaces/app/Chart.yaml": chart}), layout.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestLoadOnly loads one target: its namespace, its cluster folder,
// the checks of its files, and none of the repository-wide ones.
func TestLoadOnly(t *testing.T) {
	fsys := fstest.MapFS{
		"repotool.yaml":                    {Data: []byte("clusters:\n  gone: {kubeVersion: v1.30.0}\n")},
		"namespaces/app/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/unused/Chart.yaml":     {Data: []byte("apiVersion: v2\nname: unused\nversion: 1.0.0\n")},
		"clusters/c1/app/c1-values.yaml":   {Data: []byte("a: [\n")},
		"clusters/c2/app/c2-values.yaml":   {Data: []byte("b: [\n")},
		"clusters/c1/other/c1-values.yaml": {Data: []byte("c: 1\n")},
		"namespaces/other/Chart.yaml":      {Data: []byte("apiVersion: v2\nname: other\nversion: 1.0.0\n")},
	}
	full, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := layout.Load(context.Background(), fsys, layout.Options{Only: &layout.TargetRef{Cluster: "c1", Namespace: "app"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Targets) != 3 || len(one.Targets) != 1 || one.Targets[0].Name() != "c1/app" || len(one.Namespaces) != 1 {
		t.Fatalf("targets %d / %d, namespaces %d", len(full.Targets), len(one.Targets), len(one.Namespaces))
	}
	full1, _ := full.Target("c1", "app")
	if !slices.Equal(diagFiles(one.Targets[0].Errors), diagFiles(full1.Errors)) || len(one.Targets[0].Errors) != 1 {
		t.Errorf("the target's errors: %v, full load: %v", one.Targets[0].Errors, full1.Errors)
	}
	var codes []string
	for _, d := range one.Diagnostics {
		codes = append(codes, string(d.Code)+" "+d.File)
	}
	if strings.Join(codes, ", ") != "values-invalid clusters/c1/app/c1-values.yaml" {
		t.Errorf("diagnostics: %v (none about c2, the unused namespace or the configured cluster that is gone)", codes)
	}
}

// TestScopeText: a scope prints and encodes as its name, reads back from
// it, and an unknown name or number fails.
func TestScopeText(t *testing.T) {
	for _, s := range []layout.Scope{layout.ScopeCommon, layout.ScopeCluster, layout.ScopeClusterWide} {
		b, err := json.Marshal(layout.ValueFile{Path: "p", Scope: s})
		if err != nil {
			t.Fatal(err)
		}
		var back layout.ValueFile
		if err := json.Unmarshal(b, &back); err != nil || back.Scope != s {
			t.Errorf("%s: read back from %s as %v, %v", s, b, back.Scope, err)
		}
		if want := `{"path":"p","scope":"` + s.String() + `","secret":false}`; string(b) != want {
			t.Errorf("%s encodes as %s, want %s", s, b, want)
		}
	}
	if got := layout.ScopeClusterWide.String(); got != "cluster-wide" {
		t.Errorf("ScopeClusterWide prints as %q", got)
	}
	var s layout.Scope
	if err := s.UnmarshalText([]byte("global")); err == nil {
		t.Error("scope global read: want a failure")
	}
	if _, err := layout.Scope(9).MarshalText(); err == nil {
		t.Error("scope 9 encoded: want a failure")
	}
}

// TestTargetsOf: each cluster's targets, one after another, are the
// repository's; a cluster with none has none.
func TestTargetsOf(t *testing.T) {
	repo, err := layout.LoadDir(context.Background(), "../../testdata/monorepo", layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []layout.Target
	for _, c := range repo.Clusters {
		of := repo.TargetsOf(c.Name)
		if len(of) != len(c.Namespaces) {
			t.Errorf("%s: %d targets, want one for each of %v", c.Name, len(of), c.Namespaces)
		}
		all = append(all, of...)
	}
	if !reflect.DeepEqual(all, repo.Targets) || len(all) == 0 {
		t.Errorf("the clusters' targets are not the repository's")
	}
	for _, c := range []string{"", "a", "zzz", "dev-cluster/"} {
		if got := repo.TargetsOf(c); len(got) != 0 {
			t.Errorf("%q: %d targets", c, len(got))
		}
	}
}
