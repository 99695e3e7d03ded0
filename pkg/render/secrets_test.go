package render_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

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
// every target renders with its values; the run lets its plaintext go
// after the last target that reads it, so that a rendering after the run
// decrypts it again, as a renderer of its own does.
func TestDecryptOncePerFile(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	dec := &countingDecrypter{calls: map[string]int{}, next: &decrypt.SOPS{}}
	r := render.New(repo, render.DefaultOptions(), render.WithDecrypter(dec))
	results := r.RenderAll(context.Background(), repo.Targets)
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
	if _, err := r.Render(context.Background(), prod); err != nil {
		t.Fatal(err)
	}
	if dec.calls[shared] != 2 {
		t.Errorf("after the run, %s decrypted %d times in all, want 2: its plaintext was kept", shared, dec.calls[shared])
	}
	if _, err := render.New(repo, render.DefaultOptions(), render.WithDecrypter(dec)).Render(context.Background(), prod); err != nil {
		t.Fatal(err)
	}
	if dec.calls[shared] != 3 {
		t.Errorf("a second renderer decrypted %s %d times in all, want 3", shared, dec.calls[shared])
	}
}
