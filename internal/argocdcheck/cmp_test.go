package argocdcheck

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	"github.com/argoproj/argo-cd/v3/util/tgzstream"
	"google.golang.org/grpc"
	"sigs.k8s.io/yaml"
)

// streamPipe connects Argo CD's repo-server side of a CMP stream
// (cmp.SendRepoStream) to the plugin server's side (Service.GenerateManifest)
// in memory.
type streamPipe struct {
	grpc.ServerStream
	ctx  context.Context
	ch   chan *apiclient.AppStreamRequest
	resp *apiclient.ManifestResponse
}

func (p *streamPipe) Context() context.Context { return p.ctx }

// Send passes a request on; a file chunk is copied, as gRPC would
// serialize it, because the sender reuses its buffer.
func (p *streamPipe) Send(r *apiclient.AppStreamRequest) error {
	if f := r.GetFile(); f != nil {
		f.Chunk = bytes.Clone(f.Chunk)
	}
	p.ch <- r
	return nil
}

// Recv returns io.EOF once the sender is done, as a client stream that
// closes its sending side.
func (p *streamPipe) Recv() (*apiclient.AppStreamRequest, error) {
	r, ok := <-p.ch
	if !ok {
		return nil, io.EOF
	}
	return r, nil
}

func (p *streamPipe) SendAndClose(r *apiclient.ManifestResponse) error {
	p.resp = r
	return nil
}

// TestCMPServer runs Argo CD's real Config Management Plugin server with
// the plugin configuration `repotool generate plugin` writes, and has it
// generate the manifests of generated fixture Applications (one per tier), with the
// environment Argo CD's repo-server passes (ARGOCD_APP_*, the plugin's
// ARGOCD_ENV_*, KUBE_VERSION, KUBE_API_VERSIONS) and the repository sent
// over the CMP stream as the repo-server sends it. The manifests must be
// exactly those of `repotool render --argocd` run by hand with that
// environment.
func TestCMPServer(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "repotool"), "./cmd/repotool")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build repotool: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("ARGOCD_CMP_WORKDIR", t.TempDir())
	// The secrets the fixture Application renders are encrypted for the
	// test key; the sidecar gets it as the real one would get its own.
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(root, "testdata", "age-TEST-ONLY.key"))
	t.Setenv("SOPS_AGE_KEY", "")
	// The sidecar's own environment names its cluster (generate plugin
	// --cluster writes it): the plugin renders no other cluster's target.
	t.Setenv("REPOTOOL_CLUSTER", "dev-cluster")

	cfg, err := plugin.ReadPluginConfig(filepath.Join(goldens, "plugin"))
	if err != nil {
		t.Fatalf("Argo CD refuses plugin.yaml: %v", err)
	}
	// The repo-server leaves out what generate plugin's exclusions name.
	exclusions := tarExclusions(t)
	// One Application of each tier.
	for _, file := range []string{"application-cert-manager.yaml", "application-namespace-a-security.yaml", "application-namespace-a.yaml"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(goldens, "dev-cluster", file))
			if err != nil {
				t.Fatal(err)
			}
			var app v1alpha1.Application
			if err := yaml.UnmarshalStrict(data, &app); err != nil {
				t.Fatal(err)
			}
			// The environment the repo-server gives a plugin (getPluginEnvs).
			env := []string{
				"ARGOCD_APP_NAME=" + app.Name,
				"ARGOCD_APP_NAMESPACE=" + app.Spec.Destination.Namespace,
				"ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567",
				"ARGOCD_APP_SOURCE_REPO_URL=" + app.Spec.Source.RepoURL,
				"ARGOCD_APP_SOURCE_PATH=" + app.Spec.Source.Path,
				"ARGOCD_APP_SOURCE_TARGET_REVISION=" + app.Spec.Source.TargetRevision,
				"KUBE_VERSION=1.33.5",
				"KUBE_API_VERSIONS=" + strings.Join([]string{"v1", "apps/v1", "monitoring.coreos.com/v1"}, ","),
			}
			for _, e := range app.Spec.Source.Plugin.Env {
				env = append(env, "ARGOCD_ENV_"+e.Name+"="+e.Value)
			}

			repo := filepath.Join(root, "testdata", "monorepo")
			appPath := filepath.Join(repo, filepath.FromSlash(app.Spec.Source.Path))
			ctx := context.Background()
			pipe := &streamPipe{ctx: ctx, ch: make(chan *apiclient.AppStreamRequest)}
			sent := make(chan error, 1)
			go func() {
				sent <- cmp.SendRepoStream(ctx, appPath, repo, pipe, env, exclusions)
				close(pipe.ch)
			}()
			svc := plugin.NewService(plugin.CMPServerInitConstants{PluginConfig: *cfg})
			if err := svc.GenerateManifest(pipe); err != nil {
				t.Fatalf("Argo CD's CMP server: %v", err)
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}

			direct := exec.Command("repotool", "render", "--argocd")
			direct.Dir = appPath
			direct.Env = append(os.Environ(), env...)
			out, err := direct.Output()
			if err != nil {
				t.Fatalf("repotool render --argocd: %v", err)
			}
			want, err := kube.SplitYAMLToString(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatal("render --argocd printed no objects")
			}
			if !slices.Equal(pipe.resp.Manifests, want) {
				t.Errorf("the CMP server's manifests differ from render --argocd's:\n--- server (%d)\n%s\n--- direct (%d)\n%s",
					len(pipe.resp.Manifests), strings.Join(pipe.resp.Manifests, "\n---\n"), len(want), strings.Join(want, "\n---\n"))
			}
			t.Logf("%d manifests", len(want))
		})
	}
}

// tarExclusions reads reposerver.plugin.tar.exclusions from the install
// objects `repotool generate plugin` prints for the fixture, split as the
// repo-server splits the setting.
func tarExclusions(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldens, "plugin", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var cm struct {
			Metadata struct{ Name string } `json:"metadata"`
			Data     map[string]string     `json:"data"`
		}
		if yaml.Unmarshal([]byte(doc), &cm) == nil && cm.Metadata.Name == "argocd-cmd-params-cm" {
			if v := cm.Data["reposerver.plugin.tar.exclusions"]; v != "" {
				return strings.Split(v, ";")
			}
		}
	}
	t.Fatal("install.yaml sets no reposerver.plugin.tar.exclusions")
	return nil
}

// TestTarExclusionsLeaveOut measures, with Argo CD's own tarball code, what
// the repo-server sends the plugin for the fixture with and without the
// exclusions, and checks they leave out something and keep every file a
// target reads (TestCMPServer renders through them).
func TestTarExclusionsLeaveOut(t *testing.T) {
	repo, err := filepath.Abs("../../testdata/monorepo")
	if err != nil {
		t.Fatal(err)
	}
	size := func(excluded []string) (int, int64) {
		f, n, _, err := tgzstream.CompressFiles(repo, nil, excluded)
		if err != nil {
			t.Fatal(err)
		}
		defer tgzstream.CloseAndDelete(f)
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return n, st.Size()
	}
	allFiles, allBytes := size(nil)
	files, bytes := size(tarExclusions(t))
	t.Logf("fixture tarball: %d entries, %d bytes; with the exclusions %d entries, %d bytes", allFiles, allBytes, files, bytes)
	if files >= allFiles {
		t.Errorf("the exclusions leave nothing out (%d entries of %d)", files, allFiles)
	}
}
