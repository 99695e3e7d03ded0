package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// withKey points SOPS at the test-only key (or at no key), and the
// dependency cache at an empty folder.
func withKey(t *testing.T, key bool) {
	t.Helper()
	if key {
		testtool.UseTestKey(t)
	} else {
		testtool.IsolateSOPS(t)
	}
	t.Setenv("REPOTOOL_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
}

func TestRenderCommand(t *testing.T) {
	withKey(t, true)
	runCases(t, []cliCase{
		{"one target redacted", []string{"render", monorepo, "--cluster", "dev-cluster", "--namespace", "namespace-c", "--redact"}, "render-dev-namespace-c.txt", cli.ExitOK},
		{"no selection", []string{"render", monorepo}, "render-no-selection.txt", cli.ExitError},
		{"all with cluster", []string{"render", monorepo, "--all", "-c", "dev-cluster"}, "render-all-and-cluster.txt", cli.ExitError},
		{"unknown target", []string{"render", monorepo, "-c", "prod-cluster", "-n", "namespace-c"}, "render-unknown-target.txt", cli.ExitError},
		{"unknown cluster", []string{"render", monorepo, "-c", "staging"}, "render-unknown-cluster.txt", cli.ExitError},
		{"argocd with a selection", []string{"render", "--argocd", "-c", "dev-cluster"}, "render-argocd-usage.txt", cli.ExitError},
	})
}

func TestRenderStdoutMatchesLibrary(t *testing.T) {
	withKey(t, true)
	repo, err := layout.LoadDir(context.Background(), monorepo, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	cl, _ := repo.Cluster("prod-cluster")
	r := render.New(repo, render.DefaultOptions())
	for _, ns := range cl.Namespaces {
		tg, _ := repo.Target("prod-cluster", ns)
		res, err := r.Render(context.Background(), tg)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(res.Manifest)
	}
	got, code := runCLI(t, "render", monorepo, "--cluster", "prod-cluster")
	if code != cli.ExitOK || got != want.String() {
		t.Fatalf("exit %d; stdout differs from the library's rendering of every prod-cluster target", code)
	}
}

func TestRenderOutDir(t *testing.T) {
	withKey(t, true)
	out := t.TempDir()
	stale := filepath.Join(out, "keep.txt")
	os.WriteFile(stale, []byte("untouched"), 0o644)
	got, code := runCLI(t, "render", monorepo, "--all", "--out-dir", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "render-out-dir.txt"), []byte(strings.ReplaceAll(got, out, "OUT")))
	for _, f := range []string{"dev-cluster/namespace-a.yaml", "dev-cluster/namespace-c.yaml", "prod-cluster/external-secrets.yaml"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("../../../pkg/render/testdata/golden", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s differs from the redacted golden rendering", f)
		}
	}
	if data, _ := os.ReadFile(stale); string(data) != "untouched" {
		t.Error("out-dir: an unrelated file was changed")
	}
}

// TestRenderFailures: without a key, targets with secrets fail and are
// listed; targets without secrets are still written; stdout mode prints
// nothing at all.
func TestRenderFailures(t *testing.T) {
	withKey(t, false)
	out := t.TempDir()
	got, code := runCLI(t, "render", monorepo, "--all", "--out-dir", out)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d", code, cli.ExitFindings)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "render-out-dir-no-key.txt"), []byte(strings.ReplaceAll(got, out, "OUT")))
	if _, err := os.Stat(filepath.Join(out, "dev-cluster", "cert-manager.yaml")); err != nil {
		t.Errorf("a target without secrets was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "dev-cluster", "namespace-a.yaml")); err == nil {
		t.Error("a failed target was written")
	}
	got, code = runCLI(t, "render", monorepo, "-c", "dev-cluster")
	if code != cli.ExitFindings || !strings.HasPrefix(got, "--- stderr ---") {
		t.Errorf("stdout mode with failures: exit %d, output:\n%s", code, got)
	}
}

func TestRenderArgoCD(t *testing.T) {
	withKey(t, true)
	abs, err := filepath.Abs(monorepo)
	if err != nil {
		t.Fatal(err)
	}
	env := cli.Env{
		Dir: filepath.Join(abs, "clusters", "dev-cluster", "namespace-a"),
		Environ: []string{
			"ARGOCD_APP_NAME=namespace-a",
			"ARGOCD_APP_NAMESPACE=namespace-a",
			"ARGOCD_APP_SOURCE_PATH=clusters/dev-cluster/namespace-a",
			"REPOTOOL_CLUSTER=dev-cluster",
			"KUBE_VERSION=1.31.2",
			"KUBE_API_VERSIONS=monitoring.coreos.com/v1",
		},
	}
	got, code := runCLIEnv(t, env, "render", "--argocd")
	if code != cli.ExitOK {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	repo, _ := layout.LoadDir(context.Background(), monorepo, layout.Options{})
	tg, _ := repo.Target("dev-cluster", "namespace-a")
	opts := render.DefaultOptions()
	opts.KubeVersion = "1.31.2"
	opts.APIVersions = []string{"monitoring.coreos.com/v1"}
	res, err := render.New(repo, opts).Render(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(res.Manifest) {
		t.Errorf("argocd mode output (stdout must hold only the manifests) differs:\n%s", got)
	}
	if !strings.Contains(got, "kind: ServiceMonitor") {
		t.Error("KUBE_API_VERSIONS was not applied")
	}

	env.Environ = []string{"ARGOCD_APP_SOURCE_PATH=namespaces/namespace-a", "ARGOCD_APP_NAMESPACE=namespace-a"}
	env.Dir = filepath.Join(abs, "namespaces", "namespace-a")
	got, code = runCLIEnv(t, env, "render", "--argocd")
	if code != cli.ExitError || !strings.HasPrefix(got, "--- stderr ---\nrepotool: cannot tell which target to render") {
		t.Errorf("exit %d, output:\n%s", code, got)
	}
}

// TestRenderOutDirWriteError: a file that cannot be written stops the run
// with its path, and nothing after it is written.
func TestRenderOutDirWriteError(t *testing.T) {
	withKey(t, true)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "dev-cluster"), []byte("a file where a folder goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, code := runCLI(t, "render", monorepo, "--all", "--out-dir", out)
	if code == cli.ExitOK || !strings.Contains(got, "write "+filepath.Join(out, "dev-cluster")) {
		t.Fatalf("exit %d, want a write error naming the file:\n%s", code, got)
	}
	if _, err := os.Stat(filepath.Join(out, "prod-cluster")); err == nil {
		t.Error("targets after the failed write were written")
	}
}
