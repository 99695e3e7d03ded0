package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestDepsCommand: deps update resolves a remote dependency from a chart
// repository, writes Chart.lock and the pin; render then works offline
// from the cache, deps build offline fetches nothing, and a second update
// writes nothing.
func TestDepsCommand(t *testing.T) {
	srv, digest := redisRepository(t, func(*http.Request) bool { return true })
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/app/Chart.yaml":     "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: ~7.2.0\n    repository: " + srv.URL + "\n",
		"clusters/c1/app/values-a.yaml": "redis:\n  auth:\n    enabled: false\n",
	})
	cache := t.TempDir()
	got, code := runCLI(t, "deps", "update", repo, "--cache-dir", cache)
	want := "namespaces/app: redis 7.2.4 (~7.2.0) from " + srv.URL + ": sha256:" + digest + "\nwrote namespaces/app/Chart.lock\nwrote repotool.sum\n"
	if code != cli.ExitOK || got != want {
		t.Fatalf("deps update: exit %d\n%s\nwant\n%s", code, got, want)
	}
	if pins, _ := os.ReadFile(filepath.Join(repo, "repotool.sum")); !strings.Contains(string(pins), srv.URL+" redis 7.2.4 sha256:"+digest) {
		t.Errorf("repotool.sum:\n%s", pins)
	}
	srv.Close() // from here on, nothing may need the chart repository
	if out, code := runCLI(t, "render", repo, "-c", "c1", "-n", "app", "--offline", "--cache-dir", cache); code != cli.ExitOK || !strings.Contains(out, "kind: StatefulSet") {
		t.Errorf("render offline after deps update: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "deps", "build", repo, "--offline", "--cache-dir", cache); code != cli.ExitOK || strings.Contains(out, "wrote") {
		t.Errorf("deps build offline: exit %d\n%s", code, out)
	}
	empty := t.TempDir()
	out, code := runCLI(t, "deps", "build", repo, "--offline", "--cache-dir", empty)
	if code != cli.ExitFindings || !strings.Contains(out, "namespaces/app/Chart.yaml: dependency \"redis\"") || !strings.Contains(out, "repotool deps build") {
		t.Errorf("deps build offline with an empty cache: exit %d\n%s", code, out)
	}
}

// TestDepsURLPassword: a dependency whose repository URL holds a user and
// a password is fetched with them, and neither is printed nor written
// to repotool.sum (the pin's key is the URL without them); rendering
// finds the pin.
func TestDepsURLPassword(t *testing.T) {
	srv, digest := redisRepository(t, func(r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		return ok && u == "ci" && p == "CanaryRepoPassword77"
	})
	withUser := strings.Replace(srv.URL, "http://", "http://ci:CanaryRepoPassword77@", 1)
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/app/Chart.yaml":     "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 7.2.4\n    repository: " + withUser + "\n",
		"clusters/c1/app/values-a.yaml": "redis:\n  auth:\n    enabled: false\n",
	})
	cache := t.TempDir()
	got, code := runCLI(t, "deps", "update", repo, "--cache-dir", cache)
	pins, _ := os.ReadFile(filepath.Join(repo, "repotool.sum"))
	if code != cli.ExitOK || !strings.Contains(string(pins), srv.URL+" redis 7.2.4 sha256:"+digest) {
		t.Fatalf("deps update: exit %d\n%s\nrepotool.sum:\n%s", code, got, pins)
	}
	for what, text := range map[string]string{"output": got, "repotool.sum": string(pins)} {
		if strings.Contains(text, "CanaryRepoPassword77") || strings.Contains(text, "ci:") {
			t.Errorf("the %s holds the URL's user information:\n%s", what, text)
		}
	}
	if out, code := runCLI(t, "render", repo, "-c", "c1", "-n", "app", "--offline", "--cache-dir", cache); code != cli.ExitOK || strings.Contains(out, "CanaryRepoPassword77") {
		t.Errorf("render offline after deps update: exit %d\n%s", code, out)
	}
	srv.Close()
	out, _ := runCLI(t, "deps", "update", repo, "--cache-dir", t.TempDir())
	if strings.Contains(out, "CanaryRepoPassword77") {
		t.Errorf("an unreachable repository's error names the password:\n%s", out)
	}
}

// redisRepository is a chart repository serving the fixture's redis
// 7.2.4 archive to the requests allowed lets through, and the archive's
// digest.
func redisRepository(t *testing.T, allowed func(*http.Request) bool) (*httptest.Server, string) {
	t.Helper()
	tgz, err := os.ReadFile(filepath.Join(monorepo, "namespaces/namespace-b/charts/redis-7.2.4.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tgz)
	digest := hex.EncodeToString(sum[:])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(r) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/index.yaml":
			fmt.Fprintf(w, "apiVersion: v1\nentries:\n  redis:\n    - {name: redis, version: 7.2.4, apiVersion: v2, digest: %s, urls: [redis-7.2.4.tgz]}\n", digest)
		case "/redis-7.2.4.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, digest
}
