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

// appsCanaries are testdata/apps' secret value (envs/prod/guestbook.secret.yaml)
// and its base64, as the chart's Secret holds it.
var appsCanaries = []string{"CANARY-apps-4471-pw", "Q0FOQVJZLWFwcHMtNDQ3MS1wdw==", "CANARY"}

// TestApplicationsRepository runs the commands over testdata/apps, whose
// targets are its own Argo CD Applications (docs/applications.md): each
// output against its golden, and none but the plain render stream holds
// the secret value. diff runs on a copy in Git where one Application's
// parameter changes: the change is traced to the parameter's line, and the
// other Application of the same file is not re-rendered.
func TestApplicationsRepository(t *testing.T) {
	testtool.UseTestKey(t)
	dir := filepath.Join(t.TempDir(), "apps")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "testdata", "apps"))); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "apps")
	file := filepath.Join(dir, "argocd", "prod", "guestbook.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `value: "1.28"`, `value: "1.29"`, 1)
	if changed == string(data) {
		t.Fatal("the fixture has no image.tag parameter to change")
	}
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		args []string
		exit int
	}{
		{"layout", []string{"layout", dir}, cli.ExitOK},
		{"layout-json", []string{"layout", dir, "-o", "json"}, cli.ExitOK},
		{"lint-json", []string{"lint", dir, "-o", "json"}, cli.ExitOK},
		{"lint-sarif", []string{"lint", dir, "-o", "sarif"}, cli.ExitOK},
		{"values", []string{"values", dir, "-c", "prod", "-n", "guestbook", "--origin"}, cli.ExitOK},
		{"compare-all-clusters", []string{"compare", dir, "--all-clusters"}, cli.ExitOK},
		// What internal/argocdcheck compares with the repo-server's own
		// rendering of the same Applications (all but the one with a SOPS
		// file, which Argo CD alone does not decrypt).
		{"render-prod-guestbook-canary", []string{"render", dir, "-c", "prod", "-n", "guestbook-canary"}, cli.ExitOK},
		{"render-prod-monitoring", []string{"render", dir, "-c", "prod", "-n", "monitoring"}, cli.ExitOK},
		{"render-prod-monitoring-probes-only", []string{"render", dir, "-c", "prod", "-n", "monitoring-probes-only"}, cli.ExitOK},
		{"render-staging-guestbook", []string{"render", dir, "-c", "staging", "-n", "guestbook"}, cli.ExitOK},
		{"render-staging-guestbook-preview", []string{"render", dir, "-c", "staging", "-n", "guestbook-preview"}, cli.ExitOK},
		{"diff", []string{"diff", dir, "--base", "HEAD"}, cli.ExitOK},
		{"diff-json", []string{"diff", dir, "--base", "HEAD", "-o", "json"}, cli.ExitOK},
		{"diff-markdown", []string{"diff", dir, "--base", "HEAD", "-o", "markdown"}, cli.ExitOK},
		{"generate", []string{"generate", dir, "--stdout"}, cli.ExitOK},
	} {
		t.Run(run.name, func(t *testing.T) {
			got, code := runCLI(t, run.args...)
			if code != run.exit {
				t.Errorf("exit code %d, want %d\n%s", code, run.exit, got)
			}
			for _, c := range appsCanaries {
				if strings.Contains(got, c) {
					t.Errorf("the output holds the secret value (%s):\n%s", c, got)
				}
			}
			got = strings.ReplaceAll(got, dir, "<repo>")
			golden.Check(t, filepath.Join("testdata", "golden", "apps-"+run.name+".txt"), []byte(got))
		})
	}
	// hydrate writes each Application's target to <cluster>/<name>/, its
	// Secret SOPS-encrypted: no file holds the value.
	out := filepath.Join(t.TempDir(), "hydrated")
	if got, code := runCLI(t, "hydrate", dir, "--out", out, "--secrets", "sops"); code != cli.ExitOK {
		t.Fatalf("hydrate: exit %d\n%s", code, got)
	}
	var written []string
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		written = append(written, filepath.ToSlash(rel))
		data, err := os.ReadFile(p)
		for _, c := range appsCanaries {
			if strings.Contains(string(data), c) {
				t.Errorf("hydrate wrote the secret value (%s) into %s", c, rel)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "apps-hydrate-files.txt"), []byte(strings.Join(written, "\n")+"\n"))
	// Its companions say how to render it again: by the Application's name.
	meta, err := os.ReadFile(filepath.Join(out, "prod", "guestbook-canary", "hydrator.metadata"))
	if err != nil || !strings.Contains(string(meta), "--cluster prod --namespace guestbook-canary") {
		t.Errorf("hydrator.metadata (%v):\n%s", err, meta)
	}
	// The plain stream, what Argo CD deploys, holds it: it was decrypted.
	got, code := runCLI(t, "render", dir, "-c", "prod", "-n", "guestbook")
	if code != cli.ExitOK || !strings.Contains(got, appsCanaries[1]) {
		t.Errorf("render prod/guestbook: exit %d, and the Secret should hold the decrypted value:\n%s", code, got)
	}
}
