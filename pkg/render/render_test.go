package render_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestRenderGolden renders every fixture target and compares the redacted
// stream with testdata/golden/<cluster>/<namespace>.yaml.
func TestRenderGolden(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	secrets := secretValues(t, repo)
	results := render.New(repo, render.DefaultOptions()).RenderAll(context.Background(), repo.Targets)
	for _, res := range results {
		t.Run(res.Target.Name(), func(t *testing.T) {
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			red, err := res.Redacted()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				if bytes.Contains(red, []byte(s)) {
					t.Errorf("redacted output still holds a secret value")
				}
			}
			golden.Check(t, filepath.Join("testdata", "golden", res.Target.Cluster, res.Target.Namespace+".yaml"), red)
		})
	}
}

func TestRenderDeterministic(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	render1 := func(concurrency int) [][]byte {
		opts := render.DefaultOptions()
		opts.Concurrency = concurrency
		var out [][]byte
		for _, res := range render.New(repo, opts).RenderAll(context.Background(), repo.Targets) {
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			out = append(out, res.Manifest)
		}
		return out
	}
	first := render1(1)
	for _, c := range []int{1, 4, 16} {
		again := render1(c)
		for i := range first {
			if !bytes.Equal(first[i], again[i]) {
				t.Fatalf("concurrency %d: target %s differs between runs", c, repo.Targets[i].Name())
			}
		}
	}
	// Rendering a target must not change the shared chart for the next one.
	r := render.New(repo, render.DefaultOptions())
	for range 2 {
		for i, res := range r.RenderAll(context.Background(), repo.Targets) {
			if !bytes.Equal(first[i], res.Manifest) {
				t.Fatalf("target %s differs when the renderer is reused", repo.Targets[i].Name())
			}
		}
	}
}

// countingFS counts how often each file is opened.
type countingFS struct {
	fs.FS
	opens map[string]*atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	if n, ok := c.opens[name]; ok {
		n.Add(1)
	}
	return c.FS.Open(name)
}

func (c countingFS) ReadLink(name string) (string, error)  { return fs.ReadLink(c.FS, name) }
func (c countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }
func (c countingFS) Lstat(name string) (fs.FileInfo, error) {
	return fs.Lstat(c.FS, name)
}

// TestChartsLoadedOnce counts the reads of a run, layout's included: a
// Chart.yaml is read once, by the file index, for layout, the cycle check
// and the loader, and a template once, however many targets use it.
func TestChartsLoadedOnce(t *testing.T) {
	useTestKey(t)
	cfs := countingFS{FS: os.DirFS(fixture), opens: map[string]*atomic.Int64{}}
	for _, f := range []string{"namespaces/namespace-a/Chart.yaml", "charts/common/Chart.yaml", "charts/common/templates/_deployment.tpl"} {
		cfs.opens[f] = &atomic.Int64{}
	}
	repo, err := layout.Load(context.Background(), cfs, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := render.DefaultOptions()
	opts.Concurrency = 8
	r := render.New(repo, opts)
	for range 3 {
		for _, res := range r.RenderAll(context.Background(), repo.Targets) {
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		}
	}
	for f, n := range cfs.opens {
		if got := n.Load(); got != 1 {
			t.Errorf("%s opened %d times for 3 x %d targets, want it read once", f, got, len(repo.Targets))
		}
	}
}

// TestRenderFailsPerTarget: one target that cannot decrypt fails alone, with
// an error naming the file, and the others render.
func TestRenderFailsPerTarget(t *testing.T) {
	isolateKeys(t) // no key at all
	repo := loadRepo(t, fixture)
	results := render.New(repo, render.DefaultOptions()).RenderAll(context.Background(), repo.Targets)
	var ok, failed int
	for _, res := range results {
		hasSecret := false
		for _, v := range res.Target.Values {
			hasSecret = hasSecret || v.Secret
		}
		switch {
		case hasSecret && res.Err == nil:
			t.Errorf("%s rendered without a key", res.Target.Name())
		case hasSecret:
			failed++
			if !strings.Contains(res.Err.Error(), ".secret.yaml: cannot decrypt: no key is available") {
				t.Errorf("%s: error does not name the file and reason: %v", res.Target.Name(), res.Err)
			}
		case res.Err != nil:
			t.Errorf("%s failed: %v", res.Target.Name(), res.Err)
		default:
			ok++
		}
	}
	if ok == 0 || failed == 0 {
		t.Fatalf("ok = %d, failed = %d; want both", ok, failed)
	}
}

func mapRepo(t *testing.T, files map[string]string) *layout.Repo {
	t.Helper()
	m := fstest.MapFS{}
	for p, c := range files {
		if target, ok := strings.CutPrefix(c, "symlink:"); ok {
			m[p] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(c)}
	}
	repo, err := layout.Load(context.Background(), m, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestRenderAllRespectsCancel(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, res := range render.New(repo, render.DefaultOptions()).RenderAll(ctx, repo.Targets) {
		if !errors.Is(res.Err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", res.Target.Name(), res.Err)
		}
	}
}

func TestDefaultOptions(t *testing.T) {
	if got := render.DefaultOptions().Concurrency; got != runtime.GOMAXPROCS(0) {
		t.Errorf("Concurrency = %d", got)
	}
}

// TestValueConflicts: a values file that gives a table where the chart has
// a single value (or the reverse) is reported with the file and line that
// wins, the output is what helm renders, and nothing is printed through
// Go's global logger (Helm's coalescing warns there).
func TestValueConflicts(t *testing.T) {
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	repo := mapRepo(t, map[string]string{
		"namespaces/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/values.yaml":        "replicas: 1\nimage:\n  repository: nginx\n  tag: \"1.27\"\nresources:\n  limits: {cpu: 1}\nok: {a: 1}\n",
		"namespaces/app/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: {{ .Values.replicas | toJson | quote }}\n  image: {{ .Values.image | toJson | quote }}\n",
		"namespaces/app/common-values.yaml": "replicas:\n  min: 2\n",
		"clusters/c1/app/values-a.yaml":     "ok: {b: 2}\nimage: nginx:1.27\nresources:\n  limits: 2\n",
	})
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	want := []render.ValueConflict{
		{Key: "image", File: "clusters/c1/app/values-a.yaml", Line: 2},
		{Key: "replicas", File: "namespaces/app/common-values.yaml", Line: 1, Table: true},
		{Key: "resources.limits", File: "clusters/c1/app/values-a.yaml", Line: 4},
	}
	if diff := cmp.Diff(want, res.Conflicts); diff != "" {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(res.Manifest), `replicas: "{\"min\":2}"`) || !strings.Contains(string(res.Manifest), `image: "\"nginx:1.27\""`) {
		t.Errorf("the values file's values did not win, as they do in helm:\n%s", res.Manifest)
	}
	if logged.Len() > 0 {
		t.Errorf("printed through the global logger:\n%s", logged.String())
	}
}

// TestMaxOutputSize: a target whose templates print more than
// MaxOutputSize fails with a message naming the limit, and the objects
// are not parsed; within the limit it renders.
func TestMaxOutputSize(t *testing.T) {
	root := t.TempDir()
	testtool.WriteFiles(t, root, map[string]string{
		"namespaces/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/cm.yaml": "{{ range until (int .Values.count) }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{{ . }}\n{{ end }}\n",
		"clusters/c1/app/c1-values.yaml":   "count: 1000\n",
		"clusters/c2/app/c2-values.yaml":   "count: 1\n",
	})
	repo := loadRepo(t, root)
	opts := render.DefaultOptions()
	opts.MaxOutputSize = 10_000
	r := render.New(repo, opts)
	big, _ := repo.Target("c1", "app")
	_, err := r.Render(context.Background(), big)
	var te *render.TemplateError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "more than the limit of 10000 (--max-output-size)") {
		t.Fatalf("err = %v, want a TemplateError about the limit", err)
	}
	small, _ := repo.Target("c2", "app")
	res, err := r.Render(context.Background(), small)
	if err != nil || len(res.Objects) != 1 {
		t.Fatalf("within the limit: %v, %d objects", err, len(res.Objects))
	}
}
