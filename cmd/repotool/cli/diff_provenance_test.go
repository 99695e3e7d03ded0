package cli_test

import (
	"encoding/base64"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// testRecipient is the age recipient of testdata/age-TEST-ONLY.key.
const testRecipient = "age1gv5876r2m5p20tl08h4p3fruc2kn47xy4z0h95y3taqqwvfgcu0qfqxvew"

// encryptValues writes plain as a SOPS-encrypted values file at file,
// encrypted by the sops CLI for the test key.
func encryptValues(t *testing.T, file, plain string) {
	t.Helper()
	testtool.WriteFiles(t, filepath.Dir(file), map[string]string{filepath.Base(file): plain})
	cmd := exec.Command(testtool.SOPS(t), "encrypt", "-i", "--age", testRecipient, file)
	cmd.Dir = filepath.Dir(file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sops encrypt: %v\n%s", err, out)
	}
}

// TestDiffProvenance: each changed field names the values file and line
// that set it at head, and at base when it moved there from another
// file; a changed secret value is named by its field and its file, never
// its value (at either revision, in any encoding); a template change has
// no values to name; the targets re-rendered with no change are folded
// into one line. Every format, byte for byte.
func TestDiffProvenance(t *testing.T) {
	testtool.UseTestKey(t)
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/a/Chart.yaml":            "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/common-values-a.yaml":  "level: info\nreplicas: 1\n",
		"namespaces/a/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  level: {{ .Values.level | quote }}\n  url: \"https://{{ .Values.host }}/api\"\n",
		"namespaces/a/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: {{ .Values.replicas }}\n",
		"namespaces/a/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\nstringData:\n  password: {{ .Values.password | quote }}\n",
		"clusters/dev/a/dev-values-a.yaml":   "host: dev.example.com\n",
		"clusters/prd/a/prd-values-a.yaml":   "host: example.com\n",
		"clusters/stg/a/stg-values-a.yaml":   "host: stg.example.com\n",
	})
	const oldSecret, newSecret = "canary-old-pw-4471", "canary-new-pw-9902"
	for _, c := range []string{"dev", "prd", "stg"} {
		encryptValues(t, filepath.Join(repo, "clusters", c, "a", c+"-values-a.secret.yaml"), "password: "+oldSecret+"\n")
	}
	testtool.GitCommit(t, repo, "base")
	// dev: the level moves from the common file to dev's, the host and the
	// replicas change, the password is encrypted anew with a new value.
	testtool.WriteFiles(t, repo, map[string]string{
		"clusters/dev/a/dev-values-a.yaml": "host: dev2.example.com\nlevel: debug\nreplicas: 3\n",
		// A change to the chart's files every cluster renders: stg and prd
		// re-render to the same objects.
		"namespaces/a/README.md": "the chart\n",
	})
	encryptValues(t, filepath.Join(repo, "clusters", "dev", "a", "dev-values-a.secret.yaml"), "password: "+newSecret+"\n")
	for _, format := range []string{"text", "json", "markdown"} {
		out, code := runCLI(t, "diff", repo, "--base", "HEAD", "-o", format)
		if code != 0 {
			t.Fatalf("-o %s: exit %d\n%s", format, code, out)
		}
		for _, secret := range []string{oldSecret, newSecret, base64.StdEncoding.EncodeToString([]byte(newSecret)), "pw-"} {
			if strings.Contains(out, secret) {
				t.Errorf("-o %s shows a secret value (%q)", format, secret)
			}
		}
		golden.Check(t, filepath.Join("testdata", "golden", "diff-provenance."+format), []byte(out))
	}
	out, _ := runCLI(t, "diff", repo, "--base", "HEAD")
	for _, want := range []string{
		"/data/level <- level at clusters/dev/a/dev-values-a.yaml:2 (base: namespaces/a/common-values-a.yaml:1)",
		"/data/url <- host at clusters/dev/a/dev-values-a.yaml:1\n",
		"/spec/replicas <- replicas at clusters/dev/a/dev-values-a.yaml:3 (base: namespaces/a/common-values-a.yaml:2)",
		"/stringData/password <- a secret value of clusters/dev/a/dev-values-a.secret.yaml (not shown)",
		"2 more targets re-rendered, no change",
		"3 changed objects in 1 target (2 more re-rendered, no change)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text diff lacks %q:\n%s", want, out)
		}
	}
}
