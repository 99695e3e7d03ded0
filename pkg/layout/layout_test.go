package layout_test

import (
	"context"
	"errors"
	"io/fs"
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

func TestLoadDiagnostics(t *testing.T) {
	base := map[string]string{
		"namespaces/app/Chart.yaml":     chart,
		"clusters/c1/app/values-a.yaml": "a: 1\n",
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []diag
	}{
		{
			name:  "clean",
			files: map[string]string{},
			want:  []diag{},
		},
		{
			name:  "cluster folder for a namespace without a folder",
			files: map[string]string{"clusters/c1/ghost/values.yaml": "a: 1\n"},
			want:  []diag{{layout.SeverityError, layout.CodeChartMissing, "clusters/c1/ghost", 0}},
		},
		{
			name: "cluster folder for a namespace folder without Chart.yaml",
			files: map[string]string{
				"namespaces/nochart/common-values.yaml": "a: 1\n",
				"clusters/c1/nochart/values.yaml":       "a: 1\n",
			},
			want: []diag{{layout.SeverityError, layout.CodeChartMissing, "clusters/c1/nochart", 0}},
		},
		{
			name: "Chart.yaml that is not YAML",
			files: map[string]string{
				"namespaces/broken/Chart.yaml": "apiVersion: v2\nname: [broken\n",
				"clusters/c1/broken/":          "",
			},
			want: []diag{
				{layout.SeverityError, layout.CodeChartMissing, "clusters/c1/broken", 0},
				{layout.SeverityError, layout.CodeChartInvalid, "namespaces/broken/Chart.yaml", 2},
			},
		},
		{
			name: "Chart.yaml without a name",
			files: map[string]string{
				"namespaces/noname/Chart.yaml": "apiVersion: v2\nversion: 1.0.0\n",
			},
			want: []diag{{layout.SeverityError, layout.CodeChartInvalid, "namespaces/noname/Chart.yaml", 1}},
		},
		{
			name:  "namespace chart no cluster deploys",
			files: map[string]string{"namespaces/unused/Chart.yaml": chart},
			want:  []diag{{layout.SeverityWarning, layout.CodeNamespaceUnused, "namespaces/unused/Chart.yaml", 0}},
		},
		{
			name:  "secret values file in plain text",
			files: map[string]string{"clusters/c1/app/values-a.secret.yaml": "password: hunter2\n"},
			want:  []diag{{layout.SeverityError, layout.CodeSecretNotEncrypted, "clusters/c1/app/values-a.secret.yaml", 0}},
		},
		{
			name:  "common secret values file in plain text",
			files: map[string]string{"namespaces/app/common-values.secret.yaml": "password: hunter2\n"},
			want:  []diag{{layout.SeverityError, layout.CodeSecretNotEncrypted, "namespaces/app/common-values.secret.yaml", 0}},
		},
		{
			name:  "sops block without a mac is not encrypted",
			files: map[string]string{"clusters/c1/app/values-b.secret.yaml": "a: 1\nsops:\n  version: 3.9.0\n"},
			want:  []diag{{layout.SeverityError, layout.CodeSecretNotEncrypted, "clusters/c1/app/values-b.secret.yaml", 0}},
		},
		{
			name:  "encrypted file not named as a secret",
			files: map[string]string{"clusters/c1/app/values-b.yaml": encrypted},
			want:  []diag{{layout.SeverityError, layout.CodeSecretNotEncrypted, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name:  "values file that is not YAML",
			files: map[string]string{"clusters/c1/app/values-b.yaml": "a: 1\nb: [1, 2\nc: 3\n"},
			want:  []diag{{layout.SeverityError, layout.CodeValuesInvalid, "clusters/c1/app/values-b.yaml", 2}},
		},
		{
			name:  "values file with a duplicate key",
			files: map[string]string{"clusters/c1/app/values-b.yaml": "image:\n  tag: \"1.0\"\n  pullPolicy: Always\n  tag: \"2.0\"\n"},
			want:  []diag{{layout.SeverityError, layout.CodeValuesInvalid, "clusters/c1/app/values-b.yaml", 4}},
		},
		{
			name:  "values file that is a list",
			files: map[string]string{"namespaces/app/common-values.yaml": "# values\n- a\n- b\n"},
			want:  []diag{{layout.SeverityError, layout.CodeValuesInvalid, "namespaces/app/common-values.yaml", 2}},
		},
		{
			name:  "YAML file matching no values pattern",
			files: map[string]string{"clusters/c1/app/deployment.yaml": "kind: Deployment\n"},
			want:  []diag{{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/app/deployment.yaml", 0}},
		},
		{
			name:  "sub-folder in a target folder",
			files: map[string]string{"clusters/c1/app/extra/values.yaml": "a: 1\n"},
			want:  []diag{{layout.SeverityWarning, layout.CodeFileUnrecognized, "clusters/c1/app/extra", 0}},
		},
		{
			name:  "folder named like a cluster values file",
			files: map[string]string{"clusters/c1/app/values-b.yaml/replicas.yaml": "a: 1\n"},
			want:  []diag{{layout.SeverityError, layout.CodeNotAFile, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name:  "folder named like a common values file",
			files: map[string]string{"namespaces/app/common-values-b.yaml/replicas.yaml": "a: 1\n"},
			want:  []diag{{layout.SeverityError, layout.CodeNotAFile, "namespaces/app/common-values-b.yaml", 0}},
		},
		{
			name:  "values file linked outside the repository",
			files: map[string]string{"clusters/c1/app/values-b.yaml": "symlink:../../../../etc/values.yaml"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkEscape, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name:  "absolute symlink",
			files: map[string]string{"clusters/c1/app/values-b.yaml": "symlink:/etc/passwd"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkEscape, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name: "symlink chain that escapes in its second hop",
			files: map[string]string{
				"shared/link":                   "symlink:../../outside.yaml",
				"clusters/c1/app/values-b.yaml": "symlink:../../../shared/link",
			},
			want: []diag{{layout.SeverityError, layout.CodeSymlinkEscape, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name:  "chart template linked outside the repository",
			files: map[string]string{"namespaces/app/templates/cm.yaml": "symlink:../../../../secrets/cm.yaml"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkEscape, "namespaces/app/templates/cm.yaml", 0}},
		},
		{
			name:  "cluster folder linked outside the repository",
			files: map[string]string{"clusters/c2": "symlink:../../elsewhere"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkEscape, "clusters/c2", 0}},
		},
		{
			name:  "broken symlink",
			files: map[string]string{"clusters/c1/app/values-b.yaml": "symlink:missing.yaml"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkBroken, "clusters/c1/app/values-b.yaml", 0}},
		},
		{
			name: "values links that loop",
			files: map[string]string{
				"clusters/c1/app/values-b.yaml": "symlink:values-c.yaml",
				"clusters/c1/app/values-c.yaml": "symlink:values-b.yaml",
			},
			want: []diag{
				{layout.SeverityError, layout.CodeSymlinkBroken, "clusters/c1/app/values-b.yaml", 0},
				{layout.SeverityError, layout.CodeSymlinkBroken, "clusters/c1/app/values-c.yaml", 0},
			},
		},
		{
			name:  "chart folder linking to its parent",
			files: map[string]string{"namespaces/app/templates/loop": "symlink:.."},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkBroken, "namespaces/app/templates/loop", 0}},
		},
		{
			name:  "dangling link inside a chart",
			files: map[string]string{"namespaces/app/templates/cm.yaml": "symlink:gone.yaml"},
			want:  []diag{{layout.SeverityError, layout.CodeSymlinkBroken, "namespaces/app/templates/cm.yaml", 0}},
		},
		{
			name:  "cluster folder replaced by a file",
			files: map[string]string{"clusters/c2": "a file\n"},
			want:  []diag{{layout.SeverityError, layout.CodeNotAFolder, "clusters/c2", 0}},
		},
		{
			name: "namespace folder replaced by a file",
			files: map[string]string{
				"namespaces/app/Chart.yaml":     "",
				"namespaces/other":              "a file\n",
				"clusters/c1/other/values.yaml": "a: 1\n",
			},
			want: []diag{
				{layout.SeverityError, layout.CodeChartMissing, "clusters/c1/app", 0},
				{layout.SeverityError, layout.CodeChartMissing, "clusters/c1/other", 0},
				{layout.SeverityError, layout.CodeChartInvalid, "namespaces/app/Chart.yaml", 1},
				{layout.SeverityError, layout.CodeNotAFolder, "namespaces/other", 0},
			},
		},
		{
			name:  "cluster folder name that is not a DNS label",
			files: map[string]string{"clusters/Dev_Cluster/app/values-a.yaml": "a: 1\n"},
			want:  []diag{{layout.SeverityError, layout.CodeNameInvalid, "clusters/Dev_Cluster", 0}},
		},
		{
			name: "namespace folder name that is not a DNS label",
			files: map[string]string{
				"namespaces/Bad_NS/Chart.yaml":     chart,
				"clusters/c1/Bad_NS/values-a.yaml": "a: 1\n",
			},
			want: []diag{{layout.SeverityError, layout.CodeNameInvalid, "namespaces/Bad_NS", 0}},
		},
		{
			name:  "files with an extension are not folders",
			files: map[string]string{"clusters/README.md": "# clusters\n", "namespaces/.gitkeep": "", "clusters/c1/NOTES": "x"},
			want:  []diag{},
		},
		{
			name: "symlinks inside the repository are followed",
			files: map[string]string{
				"shared/values-common.yaml":     "a: 1\n",
				"clusters/c1/app/values-b.yaml": "symlink:../../../shared/values-common.yaml",
				"clusters/c2":                   "symlink:c1",
			},
			want: []diag{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tt.files {
				files[k] = v
			}
			repo := load(t, files)
			if diff := cmp.Diff(tt.want, diags(repo)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nall: %v", diff, repo.Diagnostics)
			}
			// Every error about a target's files fails that target: it
			// stays in the layout, with the error.
			for _, d := range repo.Diagnostics {
				if d.Severity != layout.SeverityError || !strings.HasPrefix(d.File, "clusters/c1/") && !strings.HasPrefix(d.File, "namespaces/app/") {
					continue
				}
				for _, tg := range repo.Targets {
					if strings.HasPrefix(d.File, tg.Dir) || strings.HasPrefix(d.File, tg.ChartDir) {
						if !slices.Contains(tg.Errors, d) {
							t.Errorf("target %s does not carry %s", tg.Name(), d)
						}
					}
				}
			}
			if _, ok := repo.Target("c1", "app"); !ok {
				t.Error("target c1/app was dropped")
			}
			for _, d := range repo.Diagnostics {
				if d.Message == "" || d.Hint == "" {
					t.Errorf("diagnostic without message or hint: %+v", d)
				}
				if strings.Contains(d.String(), "hunter2") {
					t.Errorf("diagnostic leaks a secret value: %s", d)
				}
			}
		})
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

func diagFiles(ds []layout.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.File)
	}
	return out
}
