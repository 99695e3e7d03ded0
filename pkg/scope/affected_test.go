package scope_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/scope"
)

// TestAffected commits the fixture, makes one kind of change, commits it,
// and checks which targets the change affects (and which it touches: all
// but the removed ones), the sides loaded from the two commits: a library chart every
// application chart depends on through file://, a deleted cluster, a
// deleted namespace, repotool.yaml, a renamed values file, a values file
// that is a link whose target changes, a binary file in a chart, and a
// file no target reads.
func TestAffected(t *testing.T) {
	all := "dev-cluster/cert-manager dev-cluster/dev-envs dev-cluster/external-secrets dev-cluster/namespace-a dev-cluster/namespace-b dev-cluster/namespace-c prod-cluster/cert-manager prod-cluster/external-secrets prod-cluster/namespace-a prod-cluster/namespace-b prod-cluster/policies"
	tests := []struct {
		name string
		// setup runs before the base commit, change between the commits.
		setup, change func(t *testing.T, dir string)
		want          string // "name" per target, "+" added, "-" removed
		files         string // the files of the first affected target
	}{
		{
			name: "library chart",
			change: func(t *testing.T, dir string) {
				appendFile(t, dir, "charts/common/templates/_helpers.tpl", "{{/* changed */}}\n")
			},
			// Every chart but dev-envs' and policies'.
			want:  strings.Replace(strings.Replace(all, "dev-cluster/dev-envs ", "", 1), " prod-cluster/policies", "", 1),
			files: "charts/common/templates/_helpers.tpl",
		},
		{
			name:   "deleted cluster",
			change: func(t *testing.T, dir string) { removeAll(t, dir, "clusters/prod-cluster") },
			want:   "-prod-cluster/cert-manager -prod-cluster/external-secrets -prod-cluster/namespace-a -prod-cluster/namespace-b -prod-cluster/policies",
		},
		{
			name: "deleted namespace",
			change: func(t *testing.T, dir string) {
				removeAll(t, dir, "namespaces/namespace-c")
				removeAll(t, dir, "clusters/dev-cluster/namespace-c")
			},
			want: "-dev-cluster/namespace-c",
		},
		{
			name:   "repotool.yaml",
			change: func(t *testing.T, dir string) { appendFile(t, dir, "repotool.yaml", "# changed\n") },
			want:   all, files: "repotool.yaml",
		},
		{
			name: "renamed values file",
			change: func(t *testing.T, dir string) {
				rename(t, dir, "clusters/dev-cluster/namespace-a/dev-values-a.yaml", "clusters/dev-cluster/namespace-a/dev-values-a-renamed.yaml")
			},
			want: "dev-cluster/namespace-a", files: "clusters/dev-cluster/namespace-a/dev-values-a-renamed.yaml clusters/dev-cluster/namespace-a/dev-values-a.yaml",
		},
		{
			name: "values link",
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir, "shared/replicas.yaml", "replicas: 2\n")
				if err := os.Symlink("../../../shared/replicas.yaml", filepath.Join(dir, "clusters/prod-cluster/namespace-b/prod-values-replicas.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			change: func(t *testing.T, dir string) { writeFile(t, dir, "shared/replicas.yaml", "replicas: 3\n") },
			want:   "prod-cluster/namespace-b", files: "shared/replicas.yaml",
		},
		{
			name: "binary file in a chart",
			change: func(t *testing.T, dir string) {
				writeFile(t, dir, "namespaces/namespace-c/files/logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff")
			},
			want: "dev-cluster/namespace-c", files: "namespaces/namespace-c/files/logo.png",
		},
		{
			name:   "unrelated file",
			change: func(t *testing.T, dir string) { writeFile(t, dir, "docs/runbook.md", "# Runbook\n") },
			want:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("../../testdata/monorepo")); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			testtool.GitCommit(t, dir, "base")
			tt.change(t, dir)
			// The working tree against the base, Git's repository opened
			// once for what it ignores and for the comparison, as the CLI
			// does; then the same change committed.
			repo, err := scope.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			ignored, err := repo.Ignored()
			if err != nil {
				t.Fatal(err)
			}
			work, err := scope.LoadSides(context.Background(), dir, scope.SidesOptions{Base: "HEAD", Repo: repo, Layout: layout.Options{Ignored: ignored}})
			if err != nil {
				t.Fatal(err)
			}
			if got := affectedNames(work); got != tt.want {
				t.Errorf("affected in the working tree:\n got %s\nwant %s", got, tt.want)
			}
			testtool.GitCommit(t, dir, "head")
			s, err := scope.LoadSides(context.Background(), dir, scope.SidesOptions{Base: "HEAD~1", Head: "HEAD"})
			if err != nil {
				t.Fatal(err)
			}
			got := scope.Affected(s.Base, s.Head, s.Changed)
			var kept []string
			for _, a := range got {
				if !a.Removed {
					kept = append(kept, a.Name)
				}
			}
			if touched := s.Touched(); strings.Join(touched, " ") != strings.Join(kept, " ") {
				t.Errorf("touched %v, want the affected targets but the removed ones: %v", touched, kept)
			}
			if got := affectedNames(s); got != tt.want {
				t.Errorf("affected:\n got %s\nwant %s", got, tt.want)
			}
			if tt.files != "" && len(got) > 0 && strings.Join(got[0].Files, " ") != tt.files {
				t.Errorf("%s: files %v, want %s", got[0].Name, got[0].Files, tt.files)
			}
		})
	}
}

// affectedNames are the sides' affected targets, an added one marked +,
// a removed one -.
func affectedNames(s *scope.Sides) string {
	var names []string
	for _, a := range scope.Affected(s.Base, s.Head, s.Changed) {
		switch {
		case a.Added:
			names = append(names, "+"+a.Name)
		case a.Removed:
			names = append(names, "-"+a.Name)
		default:
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, " ")
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	testtool.WriteFiles(t, dir, map[string]string{name: data})
}

func appendFile(t *testing.T, dir, name, data string) {
	t.Helper()
	old, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, name, string(old)+data)
}

func removeAll(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}
