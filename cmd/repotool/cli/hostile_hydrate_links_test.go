package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestHostileHydrateLinks: a hydrated folder kept in the repository is
// content a change can edit. A cluster's folder that is a link to a folder
// outside the repository, or a target's folder that is a link to a chart's
// templates, is refused with its path before anything is written, and
// nothing is written through it; --check fails on either.
func TestHostileHydrateLinks(t *testing.T) {
	for _, tt := range []struct {
		name, link, target string
	}{
		{"cluster folder to a folder outside", "out/dev", "OUTSIDE"},
		{"target folder to a chart's templates", "out/prd/a", "../../namespaces/a/templates"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			outside := t.TempDir()
			testtool.WriteFiles(t, repo, twoTargetFiles(""))
			testtool.GitCommit(t, repo, "dry")
			out := filepath.Join(repo, "out")
			if _, code := runCLI(t, "hydrate", repo, "--out", out); code != cli.ExitOK {
				t.Fatalf("first hydration: exit %d", code)
			}
			link := filepath.Join(repo, filepath.FromSlash(tt.link))
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			target := strings.ReplaceAll(tt.target, "OUTSIDE", outside)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			testtool.WriteFiles(t, repo, twoTargetFiles("data:\n  v: changed\n"))
			testtool.GitCommit(t, repo, "changed")
			got, code := runCLI(t, "hydrate", repo, "--out", out)
			if code == cli.ExitOK || !strings.Contains(got, "symbolic link") || !strings.Contains(got, filepath.Base(tt.link)) {
				t.Errorf("hydrate through the link: exit %d\n%s", code, got)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("hydrate wrote outside the output: %v", entries)
			}
			chart, _ := os.ReadDir(filepath.Join(repo, "namespaces", "a", "templates"))
			if len(chart) != 1 {
				t.Errorf("hydrate wrote into the chart: %v", chart)
			}
			got, code = runCLI(t, "hydrate", repo, "--out", out, "--check")
			if code != cli.ExitFindings || !strings.Contains(got, "(a symbolic link)") {
				t.Errorf("--check passes a link: exit %d\n%s", code, got)
			}
		})
	}
}

// TestHydrateCheckExtraFile: a file planted in a target's folder, which
// an Argo CD directory source on the folder would deploy, fails --check.
func TestHydrateCheckExtraFile(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, twoTargetFiles(""))
	testtool.GitCommit(t, repo, "dry")
	out := filepath.Join(t.TempDir(), "out")
	if _, code := runCLI(t, "hydrate", repo, "--out", out); code != cli.ExitOK {
		t.Fatalf("hydration: exit %d", code)
	}
	if got, code := runCLI(t, "hydrate", repo, "--out", out, "--check"); code != cli.ExitOK {
		t.Fatalf("--check of a fresh hydration: exit %d\n%s", code, got)
	}
	testtool.WriteFiles(t, out, map[string]string{"dev/a/planted.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n"})
	got, code := runCLI(t, "hydrate", repo, "--out", out, "--check")
	if code != cli.ExitFindings || !strings.Contains(got, "extra: dev/a/planted.yaml") || !strings.Contains(got, "remove the extra files") {
		t.Errorf("--check passes a planted file: exit %d\n%s", code, got)
	}
}
