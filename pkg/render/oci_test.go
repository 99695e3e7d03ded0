package render_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	"helm.sh/helm/v3/pkg/registry"

	"github.com/repotool/repotool/pkg/render"
)

// TestOCIDependency pushes the fixture's packaged redis chart to an
// in-process OCI registry with Helm's own registry client, then renders a
// chart that depends on it through oci://, and again from the cache offline.
func TestOCIDependency(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no docker credentials from the machine
	srv := httptest.NewServer(ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")

	tgz, err := os.ReadFile(filepath.Join(fixture, "namespaces/namespace-b/charts/redis-7.2.4.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptWriter(&strings.Builder{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Push(tgz, host+"/charts/redis:7.2.4"); err != nil {
		t.Fatalf("push: %v", err)
	}

	repo := mapRepo(t, remoteRepoFiles("oci://"+host+"/charts", "7.2.4", nil))
	opts := render.DefaultOptions()
	opts.CacheDir = t.TempDir()
	opts.PlainHTTPRegistries = true
	res, err := render.New(repo, opts).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Manifest), "kind: StatefulSet") {
		t.Fatalf("OCI dependency not rendered:\n%s", res.Manifest)
	}

	srv.Close() // the registry is gone: the cache must serve the next run, for the pinned archive
	opts.Offline = true
	if _, err := render.New(repo, opts).Render(context.Background(), &repo.Targets[0]); err == nil || !strings.Contains(err.Error(), "repotool.sum has no digest for it") {
		t.Fatalf("offline from cache without a pin: %v", err)
	}
	sum := sha256.Sum256(tgz)
	pinned := mapRepo(t, remoteRepoFiles("oci://"+host+"/charts", "7.2.4", map[string]string{
		"repotool.sum": "oci://" + host + "/charts redis 7.2.4 sha256:" + hex.EncodeToString(sum[:]) + "\n",
	}))
	if _, err := render.New(pinned, opts).Render(context.Background(), &pinned.Targets[0]); err != nil {
		t.Fatalf("offline from cache: %v", err)
	}

	// A version range cannot be pulled from a registry.
	repo = mapRepo(t, remoteRepoFiles("oci://"+host+"/charts", "~7.2.0", nil))
	opts.Offline = false
	_, err = render.New(repo, opts).Render(context.Background(), &repo.Targets[0])
	if err == nil || !strings.Contains(err.Error(), "OCI dependencies need an exact version") {
		t.Fatalf("range: err = %v", err)
	}
}
