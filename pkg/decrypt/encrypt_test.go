package decrypt_test

import (
	"context"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// testRecipient is testdata/age-TEST-ONLY.key's public key.
const testRecipient = "age1gv5876r2m5p20tl08h4p3fruc2kn47xy4z0h95y3taqqwvfgcu0qfqxvew"

// TestEncryptSecret: a Secret encrypted for the recipients of the
// .sops.yaml rule that matches its path decrypts, with the SOPS library
// and the recipient's key, to the same object; only data and stringData
// are encrypted, and the document keeps the manifest's two-space indent;
// each encryption is new; a path no rule covers fails, naming it.
func TestEncryptSecret(t *testing.T) {
	testtool.UseTestKey(t)
	config := []byte("creation_rules:\n  - path_regex: ^values/\n    age: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n" +
		"  - path_regex: (^|/)manifest\\.yaml$\n    encrypted_regex: ^password$\n    age: " + testRecipient + "\n")
	doc := []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n  namespace: shop\n  labels:\n    app: shop\ntype: Opaque\n" +
		"data:\n  token: c2VjcmV0LXRva2VuLTE5OTI=\nstringData:\n  password: hunter2-canary\n  url: https://user:hunter2-canary@example.com\n")
	rule, err := decrypt.CreationRule(config, "prod/shop/manifest.yaml", sopsfile.KeyPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := decrypt.EncryptSecret(rule, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2-canary", "c2VjcmV0LXRva2VuLTE5OTI="} {
		if strings.Contains(string(a), secret) {
			t.Errorf("the encrypted Secret holds %q:\n%s", secret, a)
		}
	}
	for _, plain := range []string{"kind: Secret", "\n  name: app\n", "\n    app: shop\n", "type: Opaque", "\n  encrypted_regex: ^(data|stringData)$\n", testRecipient} {
		if !strings.Contains(string(a), plain) {
			t.Errorf("the encrypted Secret lacks %q:\n%s", plain, a)
		}
	}
	plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), "manifest.yaml", a)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := yaml.Unmarshal(plain, &got); err != nil {
		t.Fatal(err)
	}
	yaml.Unmarshal(doc, &want)
	if gotY, wantY := mustYAML(t, got), mustYAML(t, want); gotY != wantY {
		t.Errorf("decrypted:\n%s\nwant:\n%s", gotY, wantY)
	}
	b, err := decrypt.EncryptSecret(rule, doc)
	if err != nil || string(a) == string(b) {
		t.Errorf("a second encryption gives the same bytes (%v)", err)
	}
	if _, err := decrypt.CreationRule(config, "prod/shop/other.yaml", sopsfile.KeyPolicy{}); err == nil || !strings.Contains(err.Error(), "no creation rule for prod/shop/other.yaml") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a path no rule covers: %v", err)
	}
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestCreationRuleAnchors: a .sops.yaml that names its recipients once,
// with anchors, as many do, gives each rule its recipients; and the rule
// chosen is sopsfile's choice, the one lint reports by.
func TestCreationRuleAnchors(t *testing.T) {
	testtool.UseTestKey(t)
	config := []byte("keys:\n  - &ci " + testRecipient + "\n  - &other age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n" +
		"creation_rules:\n  - path_regex: ^values/\n    age: *other\n  - path_regex: manifest\\.yaml$\n    age: *ci\n  - age: *other\n")
	doc := []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: hunter2-canary\n")
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(config, &root); err != nil {
		t.Fatal(err)
	}
	rules, err := sopsfile.ParseCreationRules(&root)
	if err != nil {
		t.Fatal(err)
	}
	for p, line := range map[string]int{"prod/manifest.yaml": 7, "values/manifest.yaml": 5, "other.yaml": 9} {
		if r := rules.For(p); r == nil || r.Line != line {
			t.Errorf("%s: rule %+v, want the one at line %d", p, r, line)
		}
	}
	rule, err := decrypt.CreationRule(config, "prod/manifest.yaml", sopsfile.KeyPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := decrypt.EncryptSecret(rule, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(enc), testRecipient) || strings.Contains(string(enc), "age1ql3z") {
		t.Errorf("encrypted for the wrong recipients:\n%s", enc)
	}
	if _, err := (&decrypt.SOPS{}).Decrypt(context.Background(), "manifest.yaml", enc); err != nil {
		t.Error(err)
	}
}
