package render_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// chartRepo is an HTTP chart repository serving the fixture's packaged
// redis chart, counting requests.
type chartRepo struct {
	*httptest.Server
	requests atomic.Int64
	digest   string
}

func newChartRepo(t *testing.T, digestOverride string) *chartRepo {
	t.Helper()
	tgz, err := os.ReadFile(filepath.Join(fixture, "namespaces/namespace-b/charts/redis-7.2.4.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tgz)
	cr := &chartRepo{digest: hex.EncodeToString(sum[:])}
	if digestOverride != "" {
		cr.digest = digestOverride
	}
	cr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cr.requests.Add(1)
		switch r.URL.Path {
		case "/stable/index.yaml":
			fmt.Fprintf(w, `apiVersion: v1
entries:
  redis:
    - name: redis
      version: 7.2.4
      apiVersion: v2
      digest: %s
      urls: [charts/redis-7.2.4.tgz]
    - name: redis
      version: 7.1.0
      apiVersion: v2
      urls: [charts/redis-7.1.0.tgz]
`, cr.digest)
		case "/stable/charts/redis-7.2.4.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(cr.Close)
	return cr
}

func remoteRepoFiles(url, version string, extra map[string]string) map[string]string {
	files := map[string]string{
		"namespaces/app/Chart.yaml":     appChart + "dependencies:\n  - name: redis\n    version: \"" + version + "\"\n    repository: \"" + url + "\"\n",
		"clusters/c1/app/values-a.yaml": "redis:\n  password: \"\"\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// poisonedRedis is a valid chart archive with the name and version of the
// fixture's redis chart and other content: what an attacker who can write
// the cache would put there.
func poisonedRedis(t *testing.T) []byte {
	t.Helper()
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "redis", Version: "7.2.4"},
		Templates: []*chart.File{{Name: "templates/evil.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evil\n")}},
	}
	dir := t.TempDir()
	p, err := chartutil.Save(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// poison replaces the cache entry with data and a matching digest file, as
// an attacker would.
func poison(t *testing.T, cache string, data []byte) string {
	t.Helper()
	entries, _ := filepath.Glob(filepath.Join(cache, "charts", "*.tgz"))
	if len(entries) != 1 {
		t.Fatalf("cache entries = %v", entries)
	}
	sum := sha256.Sum256(data)
	os.WriteFile(entries[0], data, 0o644)
	os.WriteFile(entries[0]+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), 0o644)
	return entries[0]
}

// TestRemoteDependencyCache: the cache saves downloads but is never trusted
// on its own: a hit is checked against the chart repository's index online,
// and against repotool.sum offline.
func TestRemoteDependencyCache(t *testing.T) {
	cr := newChartRepo(t, "")
	cache := t.TempDir()
	url := cr.URL + "/stable"
	pin := url + " redis 7.2.4 sha256:" + cr.digest + "\n"
	unpinned := mapRepo(t, remoteRepoFiles(url, "7.2.4", nil))
	pinned := mapRepo(t, remoteRepoFiles(url, "7.2.4", map[string]string{"repotool.sum": "# pins\n" + pin}))
	opts := render.DefaultOptions()
	opts.CacheDir = cache
	renderWith := func(repo *layout.Repo, offline bool) (*render.Result, error) {
		t.Helper()
		o := opts
		o.Offline = offline
		cr.requests.Store(0)
		return render.New(repo, o).Render(context.Background(), &repo.Targets[0])
	}
	isRedis := func(res *render.Result) bool {
		return strings.Contains(string(res.Manifest), "kind: StatefulSet") && !strings.Contains(string(res.Manifest), "name: evil")
	}

	res, err := renderWith(unpinned, false)
	if err != nil || !isRedis(res) {
		t.Fatalf("first run: %v\n%s", err, res.Manifest)
	}
	if got := cr.requests.Load(); got != 2 {
		t.Errorf("first run made %d requests, want 2 (index, archive)", got)
	}
	obj := res.Objects[len(res.Objects)-1]
	if !strings.HasPrefix(obj.File, cache) || obj.Member != "redis/templates/statefulset.yaml" {
		t.Errorf("object origin = %q %q, want the cached archive", obj.File, obj.Member)
	}

	// Online, a new run checks the cached archive against the index.
	if res, err = renderWith(unpinned, false); err != nil || !isRedis(res) {
		t.Fatalf("cached run: %v", err)
	}
	if got := cr.requests.Load(); got != 1 {
		t.Errorf("cached run made %d requests, want 1 (the index)", got)
	}

	// Offline, the cache serves only archives repotool.sum pins.
	if _, err = renderWith(unpinned, true); err == nil || !strings.Contains(err.Error(), "offline its archive cannot be checked: repotool.sum has no digest for it") {
		t.Errorf("offline without a pin: err = %v", err)
	}
	if res, err = renderWith(pinned, true); err != nil || !isRedis(res) || cr.requests.Load() != 0 {
		t.Errorf("offline with a pin: err = %v, %d requests", err, cr.requests.Load())
	}

	// A poisoned entry (another valid chart, its digest file matching it)
	// is refused offline, and replaced online.
	entry := poison(t, cache, poisonedRedis(t))
	if _, err = renderWith(pinned, true); err == nil || !strings.Contains(err.Error(), "but repotool.sum pins sha256:"+cr.digest) || !strings.Contains(err.Error(), "offline") {
		t.Errorf("poisoned entry offline: err = %v", err)
	}
	for _, repo := range []*layout.Repo{unpinned, pinned} {
		poison(t, cache, poisonedRedis(t))
		if res, err = renderWith(repo, false); err != nil || !isRedis(res) {
			t.Fatalf("poisoned entry online: err = %v\n%s", err, res.Manifest)
		}
		if got, _ := os.ReadFile(entry); digestHex(got) != cr.digest {
			t.Error("the poisoned entry was not replaced")
		}
	}

	// An empty archive with a matching digest file heals online.
	poison(t, cache, nil)
	if res, err = renderWith(unpinned, false); err != nil || !isRedis(res) {
		t.Fatalf("empty entry online: %v", err)
	}
	// A truncated entry (digest file not matching) is named corrupt offline.
	data, _ := os.ReadFile(entry)
	os.WriteFile(entry, data[:len(data)/2], 0o644)
	if _, err = renderWith(pinned, true); err == nil || !strings.Contains(err.Error(), "is corrupt") {
		t.Errorf("truncated entry offline: err = %v", err)
	}

	// A cache that cannot be written costs a download, not the target.
	ro := filepath.Join(t.TempDir(), "ro")
	os.MkdirAll(ro, 0o555)
	o := opts
	o.CacheDir = filepath.Join(ro, "cache")
	if os.Getuid() != 0 { // root writes anywhere
		if res, err := render.New(unpinned, o).Render(context.Background(), &unpinned.Targets[0]); err != nil || !isRedis(res) {
			t.Errorf("unwritable cache: %v", err)
		}
	}
	o.CacheDir = filepath.Join(t.TempDir(), "file")
	os.WriteFile(o.CacheDir, []byte("not a folder"), 0o644)
	if res, err := render.New(unpinned, o).Render(context.Background(), &unpinned.Targets[0]); err != nil || !isRedis(res) {
		t.Errorf("cache folder that is a file: %v", err)
	}

	// A pin that does not match what the repository serves is an error.
	wrong := mapRepo(t, remoteRepoFiles(url, "7.2.4", map[string]string{"repotool.sum": url + " redis 7.2.4 sha256:" + strings.Repeat("ab", 32) + "\n"}))
	if _, err := render.New(wrong, render.Options{CacheDir: t.TempDir()}).Render(context.Background(), &wrong.Targets[0]); err == nil || !strings.Contains(err.Error(), "but repotool.sum pins") {
		t.Errorf("wrong pin: err = %v", err)
	}
	bad := mapRepo(t, remoteRepoFiles(url, "7.2.4", map[string]string{"repotool.sum": "not a pin\n"}))
	if _, err := render.New(bad, opts).Render(context.Background(), &bad.Targets[0]); err == nil || !strings.Contains(err.Error(), "repotool.sum:1") {
		t.Errorf("malformed repotool.sum: err = %v", err)
	}
	dangling := mapRepo(t, remoteRepoFiles(url, "7.2.4", map[string]string{"repotool.sum": "symlink:pins-renamed.sum"}))
	if _, err := render.New(dangling, opts).Render(context.Background(), &dangling.Targets[0]); err == nil || !strings.Contains(err.Error(), "repotool.sum: the file is a symbolic link whose target does not exist") {
		t.Errorf("dangling repotool.sum: err = %v", err)
	}
}

func digestHex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestRemoteDependencyErrors(t *testing.T) {
	good := newChartRepo(t, "")
	bad := newChartRepo(t, strings.Repeat("0", 64))
	tests := []struct {
		name    string
		files   map[string]string
		offline bool
		noCache bool
		want    string
	}{
		{"offline with an empty cache", remoteRepoFiles(good.URL+"/stable", "7.2.4", nil), true, false, "downloads are off"},
		{"digest mismatch", remoteRepoFiles(bad.URL+"/stable", "7.2.4", nil), false, false, "but the repository index says"},
		{"no such version", remoteRepoFiles(good.URL+"/stable", "9.9.9", nil), false, false, "no chart redis matching version"},
		{"repository not reachable", remoteRepoFiles("http://127.0.0.1:1/stable", "7.2.4", nil), false, false, "check the repository URL"},
		{"range without a cache", remoteRepoFiles(good.URL+"/stable", "~7.2.0", nil), false, true, "no dependency cache is configured"},
		{"lock out of sync", remoteRepoFiles(good.URL+"/stable", "7.2.4", map[string]string{
			"namespaces/app/Chart.lock": "dependencies:\n- name: redis\n  repository: " + good.URL + "/stable\n  version: 7.2.4\ndigest: sha256:0000\ngenerated: \"2026-01-01T00:00:00Z\"\n",
		}), false, false, "out of sync"},
		{"named repository", remoteRepoFiles("@stable", "7.2.4", nil), false, false, "not a URL repotool can use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := mapRepo(t, tt.files)
			opts := render.DefaultOptions()
			opts.Offline = tt.offline
			if !tt.noCache {
				opts.CacheDir = t.TempDir()
			}
			_, err := render.New(repo, opts).Render(context.Background(), &repo.Targets[0])
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "namespaces/app") {
				t.Errorf("error does not name the chart: %v", err)
			}
		})
	}
}

// TestRemoteDependencyRangeResolved: a range resolves to the newest
// version the repository publishes, and the rendering says it is
// unstable (another run may take another version), naming the
// dependency and its Chart.yaml; an exact version is stable.
func TestRemoteDependencyRangeResolved(t *testing.T) {
	cr := newChartRepo(t, "")
	repo := mapRepo(t, remoteRepoFiles(cr.URL+"/stable", "~7.2.0", nil))
	opts := render.DefaultOptions()
	opts.CacheDir = t.TempDir()
	res, err := render.New(repo, opts).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Manifest), "redis:7.2.4-alpine") {
		t.Errorf("range ~7.2.0 did not resolve to 7.2.4")
	}
	want := []render.Unstable{{Source: manifest.Source{File: "namespaces/app/Chart.yaml"}, Dependency: "redis", Version: "~7.2.0"}}
	if !reflect.DeepEqual(res.Unstable, want) {
		t.Errorf("unstable: %+v", res.Unstable)
	}
	exact := mapRepo(t, remoteRepoFiles(cr.URL+"/stable", "7.2.4", nil))
	res, err = render.New(exact, opts).Render(context.Background(), &exact.Targets[0])
	if err != nil || len(res.Unstable) != 0 {
		t.Errorf("an exact version: %+v (%v)", res.Unstable, err)
	}
}
