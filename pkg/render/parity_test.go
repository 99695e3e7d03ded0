package render_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

func leaves(t *testing.T, doc []byte) []string { return testtool.StringLeaves(t, doc) }

// vendorForHelm prepares a copy of the fixture the way the shell wrappers
// our users replace do: file:// dependencies packaged into each chart's
// charts/ folder with the helm CLI (`helm dependency build` where every
// dependency is local; `helm package` where a remote one is already
// vendored, since helm dependency build would try to download it again).
func vendorForHelm(t *testing.T, helm, work string, repo *layout.Repo) {
	t.Helper()
	if err := os.CopyFS(work, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	for _, ns := range repo.Namespaces {
		if ns.Chart == nil || len(ns.Clusters) == 0 {
			continue
		}
		dir := filepath.Join(work, ns.Dir)
		chartYAML, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Dependencies []struct{ Repository string }
		}
		if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
			t.Fatal(err)
		}
		allLocal := true
		for _, d := range meta.Dependencies {
			allLocal = allLocal && strings.HasPrefix(d.Repository, "file://")
		}
		if allLocal {
			runHelm(t, helm, work, nil, "dependency", "build", dir)
			continue
		}
		for _, d := range meta.Dependencies {
			if p, ok := strings.CutPrefix(d.Repository, "file://"); ok {
				runHelm(t, helm, work, nil, "package", filepath.Join(dir, p), "-d", filepath.Join(dir, "charts"))
			}
		}
	}
}

func runHelm(t *testing.T, helm, tmp string, extra []*os.File, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(helm, args...)
	cmd.Env = testtool.CleanEnv(filepath.Join(tmp, ".home"))
	cmd.ExtraFiles = extra
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// helmTemplate runs `helm template` for a target in the vendored copy,
// passing decrypted secret values through pipes (/dev/fd/N), never files.
func helmTemplate(t *testing.T, helm, work string, tg *layout.Target, kubeVersion string, apiVersions []string) []byte {
	t.Helper()
	args := []string{"template", tg.Namespace, filepath.Join(work, tg.ChartDir),
		"--namespace", tg.Namespace, "--kube-version", kubeVersion, "--include-crds"}
	for _, v := range apiVersions {
		args = append(args, "--api-versions", v)
	}
	var pipes []*os.File
	for _, vf := range tg.Values {
		if !vf.Secret {
			args = append(args, "-f", filepath.Join(work, vf.Path))
			continue
		}
		plain := decryptFixture(t, vf.Path)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(plain); w.Close() }()
		defer r.Close()
		args = append(args, "-f", fmt.Sprintf("/dev/fd/%d", 3+len(pipes)))
		pipes = append(pipes, r)
	}
	return runHelm(t, helm, work, pipes, args...)
}

// TestHelmParity renders every fixture target in process and with the helm
// CLI built from the same module version, and requires identical bytes:
// as Helm 3 and as Helm 4.
func TestHelmParity(t *testing.T) {
	for _, h := range bothHelms(t) {
		t.Run(h.version, func(t *testing.T) { testHelmParity(t, h) })
	}
}

func testHelmParity(t *testing.T, h helmCLI) {
	helm := h.path
	useTestKey(t)
	repo := loadRepo(t, fixture)
	work := filepath.Join(t.TempDir(), "repo")
	vendorForHelm(t, helm, work, repo)

	variants := []struct {
		name        string
		kubeVersion string // "" = the target's own
		apiVersions []string
	}{
		{name: "configured versions"},
		{name: "old cluster", kubeVersion: "v1.22.0"},
		{name: "extra APIs", kubeVersion: "v1.35.2", apiVersions: []string{"monitoring.coreos.com/v1", "example.com/v1alpha1/Widget"}},
	}
	for _, v := range variants {
		opts := render.DefaultOptions()
		opts.Helm = h.version
		opts.KubeVersion = v.kubeVersion
		opts.APIVersions = v.apiVersions
		r := render.New(repo, opts)
		for i := range repo.Targets {
			tg := &repo.Targets[i]
			t.Run(v.name+"/"+tg.Name(), func(t *testing.T) {
				res, err := r.Render(context.Background(), tg)
				if err != nil {
					t.Fatal(err)
				}
				kv := v.kubeVersion
				if kv == "" {
					kv = tg.KubeVersion
				}
				want := helmTemplate(t, helm, work, tg, kv, append(append([]string{}, tg.APIVersions...), v.apiVersions...))
				if !bytes.Equal(want, res.Manifest) {
					t.Errorf("output differs from helm template:\n--- helm\n%s\n--- repotool\n%s", want, res.Manifest)
				}
			})
		}
	}
	// The capability-driven templates must actually have been exercised.
	prod, _ := repo.Target("prod-cluster", "namespace-a")
	opts := render.DefaultOptions()
	opts.Helm = h.version
	res, err := render.New(repo, opts).Render(context.Background(), prod)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(res.Manifest, []byte("kind: ServiceMonitor")) {
		t.Error("prod-cluster/namespace-a should render a ServiceMonitor (monitoring.coreos.com/v1 is configured)")
	}
}
