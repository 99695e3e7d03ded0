package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestApplicationSetsRepository runs the commands over testdata/appsets,
// whose targets are the Applications its ApplicationSets make (a git
// files × clusters matrix, git directories, a merge of clusters and a
// list), each output against its golden. layout -o applications is what
// internal/argocdcheck compares with Argo CD's own controller's
// expansion. diff runs on a copy in Git where one service's config file,
// which a git files generator reads, changes: the two Applications made
// from it are re-rendered, and no other.
func TestApplicationSetsRepository(t *testing.T) {
	testtool.UseTestKey(t)
	dir := filepath.Join(t.TempDir(), "appsets")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "testdata", "appsets"))); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "appsets")
	for _, run := range []struct {
		name string
		args []string
	}{
		{"layout", []string{"layout", dir}},
		{"layout-applications", []string{"layout", dir, "-o", "applications"}},
		{"lint-json", []string{"lint", dir, "-o", "json"}},
		{"render-eu-prod-api-eu-prod", []string{"render", dir, "-c", "eu-prod", "-n", "api-eu-prod"}},
		{"render-dev-cache-in-cluster", []string{"render", dir, "-c", "dev", "-n", "cache-in-cluster"}},
		{"diff", []string{"diff", dir, "--base", "HEAD"}},
	} {
		t.Run(run.name, func(t *testing.T) {
			if run.name == "diff" {
				changeReplicas(t, filepath.Join(dir, "services", "api", "config.yaml"))
			}
			got, code := runCLI(t, run.args...)
			if code != cli.ExitOK {
				t.Errorf("exit code %d, want %d\n%s", code, cli.ExitOK, got)
			}
			got = strings.ReplaceAll(got, dir, "<repo>")
			golden.Check(t, filepath.Join("testdata", "golden", "appsets-"+run.name+".txt"), []byte(got))
		})
	}
}

// changeReplicas changes the service's replicas in its config file.
func changeReplicas(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "replicas: 3", "replicas: 4", 1)
	if changed == string(data) {
		t.Fatal("the fixture has no replicas to change")
	}
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
}
