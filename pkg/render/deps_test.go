package render_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

const (
	appChart = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
	libChart = "apiVersion: v2\nname: lib\nversion: 1.2.0\ntype: library\n"
	libTpl   = `{{- define "lib.cm" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
{{- end -}}
`
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
}

// TestDependencyCycleConcurrent: two namespace charts that depend on each
// other, rendered concurrently, entered the cycle from both ends and
// deadlocked in a share of runs (Ctrl-C did not end it). Each run must end
// with the cycle error for both targets.
func TestDependencyCycleConcurrent(t *testing.T) {
	repo := mapRepo(t, map[string]string{
		"namespaces/a/Chart.yaml":     "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n  - name: b\n    repository: file://../b\n",
		"namespaces/b/Chart.yaml":     "apiVersion: v2\nname: b\nversion: 1.0.0\ndependencies:\n  - name: a\n    repository: file://../a\n",
		"clusters/c1/a/values-x.yaml": "x: 1\n",
		"clusters/c1/b/values-x.yaml": "x: 1\n",
		"clusters/c2/a/values-x.yaml": "x: 1\n",
		"clusters/c2/b/values-x.yaml": "x: 1\n",
	})
	for run := range 50 {
		opts := render.DefaultOptions()
		opts.Concurrency = 8
		done := make(chan []*render.Result)
		go func() { done <- render.New(repo, opts).RenderAll(context.Background(), repo.Targets) }()
		select {
		case results := <-done:
			for _, res := range results {
				if res.Err == nil || !strings.Contains(res.Err.Error(), "the file:// dependencies form a cycle") {
					t.Fatalf("run %d: %s: err = %v", run, res.Target.Name(), res.Err)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d deadlocked", run)
		}
	}
}

func TestLocalDependencies(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // error substring; "" = renders
	}{
		{"file dependency", map[string]string{
			"lib/Chart.yaml":                   libChart,
			"lib/templates/_cm.tpl":            libTpl,
			"namespaces/app/Chart.yaml":        appChart + "dependencies:\n  - name: lib\n    version: \">=1.0.0\"\n    repository: file://../../lib\n",
			"namespaces/app/values.yaml":       "greeting: hello\n",
			"namespaces/app/templates/cm.yaml": "{{ include \"lib.cm\" . }}\n",
		}, ""},
		{"missing folder", map[string]string{
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: 1.2.0\n    repository: file://../../nope\n",
		}, `dependency "lib" (file://../../nope): nope/Chart.yaml does not exist; fix the path in namespaces/app/Chart.yaml`},
		{"version mismatch", map[string]string{
			"lib/Chart.yaml":            libChart,
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: ^2.0.0\n    repository: file://../../lib\n",
		}, "is version 1.2.0, which does not satisfy"},
		{"wrong name", map[string]string{
			"lib/Chart.yaml":            libChart,
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: other\n    version: 1.2.0\n    repository: file://../../lib\n",
		}, `named "lib", not "other"`},
		{"outside the repository", map[string]string{
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: 1.2.0\n    repository: file://../../../elsewhere\n",
		}, "leaves the repository"},
		{"cycle", map[string]string{
			"lib/Chart.yaml":            libChart + "dependencies:\n  - name: app\n    repository: file://../namespaces/app\n",
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    repository: file://../../lib\n",
		}, "the file:// dependencies form a cycle: lib -> namespaces/app -> lib"},
		{"template folder linked to its parent", map[string]string{
			"namespaces/app/Chart.yaml":     appChart,
			"namespaces/app/templates/loop": "symlink:..",
		}, "symbolic links form a loop"},
		{"template linked outside the repository", map[string]string{
			"namespaces/app/Chart.yaml":       appChart,
			"namespaces/app/templates/x.yaml": "symlink:../../../../etc/passwd",
		}, "symbolic link leads outside the repository"},
		{"helmignore honoured", map[string]string{
			"namespaces/app/Chart.yaml":            appChart,
			"namespaces/app/.helmignore":           "broken.yaml\n",
			"namespaces/app/templates/ok.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
			"namespaces/app/templates/broken.yaml": "{{ fail \"must be ignored\" }}\n",
		}, ""},
		{"template error", map[string]string{
			"namespaces/app/Chart.yaml":       appChart,
			"namespaces/app/templates/x.yaml": "{{ required \"image.tag is required\" .Values.image }}\n",
		}, "image.tag is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"clusters/c1/app/values-a.yaml": "a: 1\n"}
			for k, v := range tt.files {
				files[k] = v
			}
			repo := mapRepo(t, files)
			res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Objects) == 0 {
					t.Fatal("no objects rendered")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestChartLockLikeHelm: a Chart.lock `helm dependency update` wrote
// renders; once Chart.yaml's dependencies change under it (a dependency
// added, changed or removed), `helm dependency build` refuses the lock,
// and so does repotool, naming both files. A dependency's own stale lock
// is not the dependent's concern (helm does not read it either).
func TestChartLockLikeHelm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the helm CLI")
	}
	helm := testtool.Helm(t)
	base := map[string]string{
		"lib/Chart.yaml":                   libChart,
		"lib/templates/_cm.tpl":            libTpl,
		"namespaces/app/Chart.yaml":        appChart + "dependencies:\n  - name: lib\n    version: \">=1.0.0\"\n    repository: file://../../lib\n",
		"namespaces/app/values.yaml":       "greeting: hello\n",
		"namespaces/app/templates/cm.yaml": "{{ include \"lib.cm\" . }}\n",
		"clusters/c1/app/values-a.yaml":    "a: 1\n",
	}
	root := t.TempDir()
	testtool.WriteFiles(t, root, base)
	app := filepath.Join(root, "namespaces", "app")
	if out, err := exec.Command(helm, "dependency", "update", "--skip-refresh", app).CombinedOutput(); err != nil {
		t.Fatalf("helm dependency update: %v\n%s", err, out)
	}
	// repotool reads file:// dependencies from the repository, not charts/.
	if err := os.RemoveAll(filepath.Join(app, "charts")); err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(app, "Chart.lock"))
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name  string
		files map[string]string
		stale bool
	}{
		{"as helm wrote it", nil, false},
		{"a dependency's own lock is stale", map[string]string{"lib/Chart.lock": "dependencies: []\ndigest: sha256:00\ngenerated: \"2026-01-01T00:00:00Z\"\n"}, false},
		{"constraint changed", map[string]string{"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: \"^1.0.0\"\n    repository: file://../../lib\n"}, true},
		{"dependency removed", map[string]string{"namespaces/app/Chart.yaml": appChart, "namespaces/app/templates/cm.yaml": "{}\n"}, true},
		{"digest emptied", map[string]string{"namespaces/app/Chart.lock": regexp.MustCompile(`(?m)^digest: .*$`).ReplaceAllString(string(lock), `digest: ""`)}, true},
	}
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(root)); err != nil {
				t.Fatal(err)
			}
			testtool.WriteFiles(t, dir, tt.files)
			out, helmErr := exec.Command(helm, "dependency", "build", "--skip-refresh", filepath.Join(dir, "namespaces", "app")).CombinedOutput()
			if helmRefused := strings.Contains(string(out), "out of sync"); helmRefused != tt.stale {
				t.Fatalf("helm dependency build refused it: %v, want %v (%v)\n%s", helmRefused, tt.stale, helmErr, out)
			}
			os.RemoveAll(filepath.Join(dir, "namespaces", "app", "charts"))
			repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
			want := "chart namespaces/app/Chart.lock: the lock file is out of sync with the dependencies in namespaces/app/Chart.yaml"
			switch {
			case !tt.stale && err != nil:
				t.Fatal(err)
			case tt.stale && (err == nil || !strings.Contains(err.Error(), want)):
				t.Fatalf("err = %v, want it to contain %q", err, want)
			}
		})
	}
}
