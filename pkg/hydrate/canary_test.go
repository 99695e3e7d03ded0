package hydrate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/hydrate"
)

// TestSecretNamesAndKeys: a secret value that makes a Secret's name, a
// ConfigMap's name or a map key reaches no message, in either mode: such
// objects and keys are described, not named, in every mode. (The canaries are
// testdata/canary's; its leaky values file is used as it is.)
func TestSecretNamesAndKeys(t *testing.T) {
	testtool.UseTestKey(t)
	repo := filepath.Join(t.TempDir(), "repo")
	secret, err := os.ReadFile("../../testdata/canary/clusters/dev/leaky/dev-values-leaky.secret.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, repo, map[string]string{
		".sops.yaml":                       "creation_rules:\n  - path_regex: (^|/)manifest\\.yaml$\n    age: age1gv5876r2m5p20tl08h4p3fruc2kn47xy4z0h95y3taqqwvfgcu0qfqxvew\n",
		"namespaces/x/Chart.yaml":          "apiVersion: v2\nname: x\nversion: 1.0.0\n",
		"namespaces/x/templates/s.yaml":    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s-{{ .Values.token | lower }}\nstringData:\n  k: v\n",
		"namespaces/x/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{{ .Values.short | lower }}\ndata:\n  plain: v\n",
		"namespaces/x/templates/keys.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\ndata:\n  {{ .Values.token }}: v\n  nested: {{ dict .Values.short \"v\" | toJson | quote }}\n",
		"namespaces/x/templates/sk.yaml":   "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sk\nstringData:\n  {{ .Values.token }}: v\n",
		"clusters/dev/x/dev-values-x.yaml": "plain: 1\n",
		"clusters/dev/sealed-secrets.pem":  testtool.SealedSecretsCert(),
	})
	os.WriteFile(filepath.Join(repo, "clusters", "dev", "x", "dev-values-x.secret.yaml"), secret, 0o644)
	for _, mode := range []hydrate.SecretsMode{hydrate.SecretsRefuse, hydrate.SecretsSOPS, hydrate.SecretsSealed} {
		res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: mode})
		if len(res.Errors) != 1 {
			t.Fatalf("%s: %v", mode, res.Errors)
		}
		msg := res.Errors[0].Error()
		for _, frag := range append(canaryFragments(), "canarytok3n", "qz7") {
			if strings.Contains(msg, frag) {
				t.Errorf("%s: the message holds %q:\n%s", mode, frag, msg)
			}
		}
		for _, want := range []string{"a Secret whose name or namespace a secret value makes (namespaces/x/templates/s.yaml)", "a ConfigMap whose name or namespace", "ConfigMap keys /data (namespaces/x/templates/keys.yaml)"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the message does not say %q:\n%s", mode, want, msg)
			}
		}
		// SOPS and sealing encrypt values, not keys: a Secret's data key
		// made of a secret value fails in every mode.
		if !strings.Contains(msg, "Secret sk /stringData (namespaces/x/templates/sk.yaml)") {
			t.Errorf("%s: a Secret whose data key is a secret value is not refused:\n%s", mode, msg)
		}
	}
}

// canaryFragments are the canaries of testdata/canary that survive any
// encoding (the list cmd/repotool/cli's canary test keeps, in part).
func canaryFragments() []string {
	return []string{"Canary", "CANARY", "Tab-5582", "Html", "Qz7", "Q2FuYXJ5"}
}
