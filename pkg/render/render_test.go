package render_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"

	"github.com/repotool/repotool/pkg/decrypt"
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

// TestRenderSecretsDecrypted checks the real (unredacted) stream carries the
// decrypted values where the chart puts them, and layering (later wins).
func TestRenderSecretsDecrypted(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	r := render.New(repo, render.DefaultOptions())
	tests := []struct {
		cluster, ns string
		want        []string
		notWant     []string
	}{
		// dev overrides the common Secret's token; prod's own token wins there.
		{"dev-cluster", "namespace-a", []string{`PAYMENTS_API_TOKEN: "tok_dev_storefront_91ab3c"`, `ANALYTICS_WRITE_KEY: "sk_common_analytics_5d1f0a"`, "LOG_LEVEL: \"debug\""}, []string{"tok_prod", "kind: HorizontalPodAutoscaler"}},
		{"prod-cluster", "namespace-a", []string{`PAYMENTS_API_TOKEN: "tok_prod_storefront_77e2d4"`, "kind: HorizontalPodAutoscaler", "kind: ServiceMonitor"}, []string{"tok_dev"}},
		// the common secret's redis password, overridden by prod's cluster secret
		{"dev-cluster", "namespace-b", []string{"password: \"cmVkaXNfY29tbW9uXzRmOGUyMQ==\""}, nil},
		{"prod-cluster", "namespace-b", []string{"password: \"cmVkaXNfcHJvZF8wYzkzYWE=\"", "--maxmemory\n            - \"512mb\""}, nil},
		{"dev-cluster", "external-secrets", []string{"server: \"https://vault.dev.example.com\"", "token: \"hvs.dev.CAESIJ0bootstrap1111\"", "kind: CustomResourceDefinition"}, nil},
	}
	for _, tt := range tests {
		tg, ok := repo.Target(tt.cluster, tt.ns)
		if !ok {
			t.Fatalf("no target %s/%s", tt.cluster, tt.ns)
		}
		res, err := r.Render(context.Background(), tg)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !bytes.Contains(res.Manifest, []byte(w)) {
				t.Errorf("%s: output lacks %q", tg.Name(), w)
			}
		}
		for _, w := range tt.notWant {
			if bytes.Contains(res.Manifest, []byte(w)) {
				t.Errorf("%s: output has %q", tg.Name(), w)
			}
		}
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

func TestChartsLoadedOnce(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	cfs := countingFS{FS: repo.FS, opens: map[string]*atomic.Int64{}}
	for _, f := range []string{"namespaces/namespace-a/Chart.yaml", "charts/common/Chart.yaml", "charts/common/templates/_deployment.tpl"} {
		cfs.opens[f] = &atomic.Int64{}
	}
	repo.FS = cfs
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

// TestNoPlaintextOnDisk renders every target with TMPDIR, HOME and the
// dependency cache pointed at empty folders, then checks that no file
// anywhere the process could have written holds a decrypted value, and that
// the repository is byte-for-byte unchanged.
func TestNoPlaintextOnDisk(t *testing.T) {
	useTestKey(t)
	work := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(work, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	tmp, cache := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	before := snapshot(t, work)
	repo := loadRepo(t, work)
	secrets := secretValues(t, loadRepo(t, fixture))
	opts := render.DefaultOptions()
	opts.CacheDir = cache
	for _, res := range render.New(repo, opts).RenderAll(context.Background(), repo.Targets) {
		if res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	home := os.Getenv("HOME")
	for _, dir := range []string{tmp, cache, home, work} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, s := range secrets {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("%s holds a decrypted secret value", p)
				}
			}
			return nil
		})
	}
	if after := snapshot(t, work); after != before {
		t.Errorf("rendering changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + info.Mode().String())
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(" " + sum(data))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// stubDecrypter "decrypts" by returning fixed plaintext per file, to test
// how decrypted values flow without real keys.
type stubDecrypter map[string]string

func (s stubDecrypter) Decrypt(_ context.Context, file string, _ []byte) ([]byte, error) {
	if v, ok := s[file]; ok {
		return []byte(v), nil
	}
	return nil, errors.New("stub: no plaintext for " + file)
}

const fakeEncrypted = "x: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  version: 3.13.3\n"

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

// TestErrorsNeverHoldSecrets makes templates fail with messages built from
// a decrypted value. The error shown is the one the rendering with
// placeholders gives, or, when only the real value fails, a message that
// names the template and withholds Helm's.
func TestErrorsNeverHoldSecrets(t *testing.T) {
	const secret = "s3cr3t-Value-from-sops-that-is-long"
	encrypted := "db:\n  password: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  version: 3.13.3\n"
	tests := []struct {
		name, template, want string
		helm4Only            bool // uses a function only Helm 4 has
	}{
		{"fails either way", `{{ fail (printf "bad password %s (%s)" .Values.db.password (b64enc .Values.db.password)) }}`,
			"bad password " + render.PlaceholderValue + " (" + base64.StdEncoding.EncodeToString([]byte(render.PlaceholderValue)) + ")", false},
		{"fails with the real value only", `{{ if gt (len .Values.db.password) 30 }}{{ fail (printf "too long: %q" .Values.db.password) }}{{ end }}`,
			"fails with the decrypted secret values, but not with placeholders for them: Helm's message is withheld because it could quote a secret; the failure is at app/templates/fail.yaml:1:", false},
		{"required with the value in a quoted key", `{{ required (printf "%q" .Values.db.password | squote) .Values.nope }}`,
			"execution error at (app/templates/fail.yaml:1:3): '\"" + render.PlaceholderValue + "\"'", false},
		{"a Helm 4 function quoting the value", `{{ mustToDuration .Values.db.password }}`,
			`error calling mustToDuration: could not parse duration "` + render.PlaceholderValue + `"`, true},
		{"a Helm 4 trace through include", `{{ define "d" }}{{ if gt (len .Values.db.password) 30 }}{{ .Values.db.password.x }}{{ end }}{{ end }}{{ include "d" . }}`,
			"Helm's message is withheld because it could quote a secret", true},
	}
	for _, helm := range []string{render.HelmV3, render.HelmV4} {
		for _, tt := range tests {
			if tt.helm4Only && helm != render.HelmV4 {
				continue
			}
			t.Run(helm+"/"+tt.name, func(t *testing.T) { errorsNeverHoldSecret(t, helm, tt.template, tt.want, secret, encrypted) })
		}
	}
}

// errorsNeverHoldSecret renders template with secret as a decrypted value,
// as the Helm helm does, and requires its error to hold want and neither
// the secret nor its base64 form.
func errorsNeverHoldSecret(t *testing.T, helm, template, want, secret, encrypted string) {
	repo := mapRepo(t, map[string]string{
		"namespaces/app/Chart.yaml":            "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"namespaces/app/templates/fail.yaml":   template + "\n",
		"clusters/c1/app/values-a.secret.yaml": encrypted,
	})
	opts := render.DefaultOptions()
	opts.Helm = helm
	r := render.New(repo, opts, render.WithDecrypter(stubDecrypter{
		"clusters/c1/app/values-a.secret.yaml": "db:\n  password: " + secret + "\n",
	}))
	_, err := r.Render(context.Background(), &repo.Targets[0])
	var te *render.TemplateError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want *TemplateError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, secret) || strings.Contains(msg, base64.StdEncoding.EncodeToString([]byte(secret))) {
		t.Fatalf("error holds the secret: %s", msg)
	}
	if !strings.Contains(msg, want) || !strings.Contains(msg, "c1/app") {
		t.Errorf("error = %s\nwant it to contain %s", msg, want)
	}
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

// TestPlaceholderDecrypter renders every fixture target without any key:
// encrypted values become typed placeholders, nothing fails, and no real
// secret value appears.
func TestPlaceholderDecrypter(t *testing.T) {
	useTestKey(t)
	secrets := secretValues(t, loadRepo(t, fixture))
	isolateKeys(t)
	repo := loadRepo(t, fixture)
	results := render.New(repo, render.DefaultOptions(), render.WithDecrypter(render.PlaceholderDecrypter{})).RenderAll(context.Background(), repo.Targets)
	for _, res := range results {
		if res.Err != nil {
			t.Fatalf("%s: %v", res.Target.Name(), res.Err)
		}
		for _, s := range secrets {
			if bytes.Contains(res.Manifest, []byte(s)) {
				t.Errorf("%s: a real secret value was rendered", res.Target.Name())
			}
		}
	}
	tg, _ := repo.Target("dev-cluster", "namespace-c")
	res, _ := render.New(repo, render.DefaultOptions(), render.WithDecrypter(render.PlaceholderDecrypter{})).Render(context.Background(), tg)
	if !bytes.Contains(res.Manifest, []byte(`PROVIDER_API_KEY: "`+render.PlaceholderValue+`"`)) || !res.FromSecrets(render.PlaceholderValue) {
		t.Errorf("placeholders not rendered or not tracked as secret:\n%s", res.Manifest)
	}
	typed, err := render.PlaceholderDecrypter{}.Decrypt(context.Background(), "x.secret.yaml", []byte("a: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:int]\nb: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:bool]\nc: plain\nsops:\n  mac: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  version: 3.13.3\n"))
	if err != nil || string(typed) != "a: 0\nb: false\nc: plain\n" {
		t.Errorf("typed placeholders = %q, %v", typed, err)
	}
	if _, err := (render.PlaceholderDecrypter{}).Decrypt(context.Background(), "x.secret.yaml", []byte("a: 1\n")); err == nil {
		t.Error("a plain file was accepted")
	}
}

// TestShortSecretProvenance: a decrypted value shorter than the redaction
// threshold still counts as coming from the secret file.
func TestShortSecretProvenance(t *testing.T) {
	repo := mapRepo(t, map[string]string{
		"namespaces/app/Chart.yaml":            "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"namespaces/app/templates/s.yaml":      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  pin: {{ .Values.pin | quote }}\n",
		"clusters/c1/app/values-a.secret.yaml": fakeEncrypted,
	})
	r := render.New(repo, render.DefaultOptions(), render.WithDecrypter(stubDecrypter{"clusters/c1/app/values-a.secret.yaml": "pin: \"42\"\n"}))
	res, err := r.Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	if !res.FromSecrets("42") || res.FromSecrets("43") {
		t.Error("short secret provenance wrong")
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

// countingDecrypter counts the decryptions of each file.
type countingDecrypter struct {
	mu    sync.Mutex
	calls map[string]int
	next  render.Decrypter
}

func (c *countingDecrypter) Decrypt(ctx context.Context, file string, data []byte) ([]byte, error) {
	c.mu.Lock()
	c.calls[file]++
	c.mu.Unlock()
	return c.next.Decrypt(ctx, file, data)
}

// TestDecryptOncePerFile: a secret values file shared by several targets
// (a namespace's common secret values) is decrypted once per run, and
// every target renders with its values; a renderer of its own decrypts
// again.
func TestDecryptOncePerFile(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	dec := &countingDecrypter{calls: map[string]int{}, next: &decrypt.SOPS{}}
	results := render.New(repo, render.DefaultOptions(), render.WithDecrypter(dec)).RenderAll(context.Background(), repo.Targets)
	const shared = "namespaces/namespace-a/common-values-a.secret.yaml"
	users := 0
	for _, res := range results {
		if res.Err != nil {
			t.Fatalf("%s: %v", res.Target.Name(), res.Err)
		}
		if slices.ContainsFunc(res.Target.Values, func(v layout.ValueFile) bool { return v.Path == shared }) {
			users++
		}
	}
	if users < 2 {
		t.Fatalf("%s is used by %d targets; the test needs a shared file", shared, users)
	}
	for file, n := range dec.calls {
		if n != 1 {
			t.Errorf("%s decrypted %d times, want once", file, n)
		}
	}
	if dec.calls[shared] != 1 {
		t.Errorf("%s decrypted %d times", shared, dec.calls[shared])
	}
	prod, _ := repo.Target("prod-cluster", "namespace-a")
	if _, err := render.New(repo, render.DefaultOptions(), render.WithDecrypter(dec)).Render(context.Background(), prod); err != nil {
		t.Fatal(err)
	}
	if dec.calls[shared] != 2 {
		t.Errorf("a second renderer decrypted %s %d times in all, want 2", shared, dec.calls[shared])
	}
}
