package argocd_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/layout"
)

func TestTarExclusions(t *testing.T) {
	chart := &fstest.MapFile{Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../../libs/lib\n")}
	base := fstest.MapFS{
		"namespaces/app/Chart.yaml":         chart,
		"namespaces/app/templates/shared":   {Data: []byte("../../../shared"), Mode: fs.ModeSymlink},
		"shared/cm.yaml":                    {Data: []byte("kind: ConfigMap\n")},
		"libs/lib/Chart.yaml":               {Data: []byte("apiVersion: v2\nname: lib\nversion: 1.0.0\n")},
		"clusters/c/app/prod-values-a.yaml": {Data: []byte("a: 1\n")},
		"docs/index.md":                     {Data: []byte("# docs\n")},
		".github/workflows/ci.yaml":         {Data: []byte("on: push\n")},
		"README.md":                         {Data: []byte("# repo\n")},
		"repotool.sum":                      {Data: []byte("")},
		".sops.yaml":                        {Data: []byte("creation_rules: []\n")},
		"argocd/c/root.yaml":                {Data: []byte("kind: Application\n")},
	}
	tests := []struct {
		name   string
		config string
		want   []string
	}{
		{"defaults", "git: {repoURL: https://example.com/r.git}\n", []string{".git", ".github", "README.md", "argocd", "docs"}},
		// In a Git subfolder: the patterns are relative to the Git root.
		{"git path", "git: {repoURL: https://example.com/r.git, path: deploy}\nargocd: {outputDir: generated/argocd}\n", []string{".git", "deploy/.github", "deploy/README.md", "deploy/argocd", "deploy/docs", "deploy/generated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"repotool.yaml": {Data: []byte(tt.config)}}
			for k, v := range base {
				fsys[k] = v
			}
			repo, err := layout.Load(context.Background(), fsys, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := argocd.TarExclusions(repo)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("TarExclusions = %q, want %q (libs and shared are read through file:// and a link)", got, tt.want)
			}
		})
	}
}
