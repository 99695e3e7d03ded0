package layout_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
)

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
			},
			want: []diag{},
		},
		{
			// It would deploy c1's values and secrets as c2's, and the
			// plugin asked for c2 would decrypt them (a namespace folder
			// linked to another target's: TestHostileFolderLinks).
			name: "a cluster folder linked to another cluster's",
			files: map[string]string{
				"clusters/c2": "symlink:c1",
			},
			want: []diag{{Severity: "error", Code: "folder-link", File: "clusters/c2"}},
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

func diagFiles(ds []layout.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.File)
	}
	return out
}
