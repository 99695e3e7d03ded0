package decrypt_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age/plugin"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/sopsfile"
)

const hostileFile = "clusters/dev-cluster/namespace-c/dev-values-c.secret.yaml"

func fixtureSecret(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "monorepo", hostileFile))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// hostileKeys are master keys of every remote kind, each at the listener
// where it can name an address, as a pull request could add them to a
// valid file's metadata.
func hostileKeys(url string) map[string][]map[string]string {
	return map[string][]map[string]string{
		"hc_vault": {{"vault_address": url, "engine_path": "transit", "key_name": "stolen", "enc": "vault:v1:AAAA", "created_at": "2026-11-01T00:00:00Z"}},
		"azure_kv": {{"vault_url": url, "name": "stolen", "version": "1", "enc": "AAAA", "created_at": "2026-11-01T00:00:00Z"}},
		"kms": {{"arn": "arn:aws:kms:us-east-1:111111111111:key/stolen", "role": "arn:aws:iam::111111111111:role/attacker",
			"enc": "AAAA", "created_at": "2026-11-01T00:00:00Z"}},
		"gcp_kms": {{"resource_id": "projects/attacker/locations/global/keyRings/r/cryptoKeys/k", "enc": "AAAA", "created_at": "2026-11-01T00:00:00Z"}},
		"pgp":     {{"fp": "0123456789ABCDEF0123456789ABCDEF01234567", "enc": "-----BEGIN PGP MESSAGE-----\n\nAAAA\n-----END PGP MESSAGE-----\n", "created_at": "2026-11-01T00:00:00Z"}},
	}
}

// hostileEnv sets the credentials a CI job has, which a hostile file's
// keys would send, and AWS's endpoint to the listener.
func hostileEnv(t *testing.T, url string) {
	t.Setenv("VAULT_TOKEN", "ci-vault-token-canary")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIACANARY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "canary")
	t.Setenv("AWS_ENDPOINT_URL", url)
	t.Setenv("AZURE_CLIENT_ID", "canary")
}

// TestHostileKeyMetadata: keys a pull request adds to a valid file's
// metadata (Vault, Azure Key Vault, AWS and GCP KMS, PGP) are never
// contacted and gpg never runs; beside an age key the file decrypts with
// age; as the only keys, the file fails naming each key and how to allow
// it.
func TestHostileKeyMetadata(t *testing.T) {
	testtool.UseTestKey(t)
	ran, home := testtool.FakePrograms(t, "gpg", "gpg2")
	l := testtool.NewListener(t, nil)
	hostileEnv(t, l.URL)
	ctx := context.Background()
	orig := fixtureSecret(t)
	want, err := (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, orig)
	if err != nil {
		t.Fatal(err)
	}

	beside := testtool.SOPSWithKeys(t, orig, hostileKeys(l.URL), false)
	got, err := (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, beside)
	if err != nil || string(got) != string(want) {
		t.Errorf("with age beside the hostile keys: err = %v, same plaintext %v", err, string(got) == string(want))
	}

	only := testtool.SOPSWithKeys(t, orig, hostileKeys(l.URL), true)
	_, err = (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, only)
	var de *decrypt.Error
	if !errors.As(err, &de) {
		t.Fatalf("hostile keys only: err = %v, want a *decrypt.Error", err)
	}
	for _, s := range []string{hostileFile, "HashiCorp Vault transit key " + l.URL + "/v1/transit/keys/stolen", "Azure Key Vault key " + l.URL,
		"AWS KMS key arn:aws:kms:us-east-1:111111111111:key/stolen+arn:aws:iam::111111111111:role/attacker",
		"Google Cloud KMS key projects/attacker", "PGP key 0123456789ABCDEF", "--allow-key hc_vault=" + l.URL, "REPOTOOL_ALLOW_KEYS"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error does not say %q:\n%v", s, err)
		}
	}
	if reqs := l.Requests(); len(reqs) > 0 {
		t.Errorf("the hostile key services were contacted: %v", reqs)
	}
	if r := ran(); len(r) > 0 {
		t.Errorf("programs ran: %v", r)
	}
	if _, err := os.Stat(filepath.Join(home, ".gnupg")); err == nil {
		t.Error("~/.gnupg was created")
	}
}

// TestAllowedVault: a Vault address the operator allows is used as
// before (the token sent to it alone); one that does not answer fails the
// file within the time limit, named; one outside the allowance (another
// host, a user part, a climbing path) is refused.
func TestAllowedVault(t *testing.T) {
	testtool.UseTestKey(t)
	ctx := context.Background()
	orig := fixtureSecret(t)
	enc := "vault:v1:" + base64.StdEncoding.EncodeToString(testtool.SOPSDataKey(t, orig))
	l := testtool.NewListener(t, testtool.VaultTransit("ci-vault-token-canary"))
	hostileEnv(t, l.URL)
	vaultFile := func(addr, engine string) []byte {
		return testtool.SOPSWithKeys(t, orig, map[string][]map[string]string{"hc_vault": {{"vault_address": addr, "engine_path": engine,
			"key_name": "sops", "enc": enc, "created_at": "2026-11-01T00:00:00Z"}}}, true)
	}
	policy, err := sopsfile.ParseKeyPolicy("hc_vault=" + l.URL + "/v1/transit")
	if err != nil {
		t.Fatal(err)
	}
	s, err := decrypt.NewSOPS(decrypt.Options{Keys: policy})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, orig)
	got, err := s.Decrypt(ctx, hostileFile, vaultFile(l.URL, "transit"))
	if err != nil || string(got) != string(want) {
		t.Fatalf("allowed Vault: err = %v", err)
	}
	if reqs := l.Requests(); !slices.Equal(reqs, []string{"PUT /v1/transit/decrypt/sops token=ci-vault-token-canary"}) {
		t.Errorf("requests = %v", reqs)
	}
	for _, addr := range []string{strings.Replace(l.URL, "127.0.0.1", "localhost", 1), l.URL + "@127.0.0.2"} {
		if _, err := s.Decrypt(ctx, hostileFile, vaultFile(addr, "transit")); err == nil || !strings.Contains(err.Error(), "is not allowed") &&
			!strings.Contains(err.Error(), "--allow-key") {
			t.Errorf("%s: err = %v, want a refusal", addr, err)
		}
	}
	if _, err := s.Decrypt(ctx, hostileFile, vaultFile(l.URL, "transit/../other")); err == nil {
		t.Error("an engine path climbing out of the allowed one was used")
	}
	if n := len(l.Requests()); n != 1 {
		t.Errorf("refused keys were contacted: %v", l.Requests())
	}

	block := make(chan struct{})
	slow := testtool.NewListener(t, func(http.ResponseWriter, *http.Request) { <-block })
	t.Cleanup(func() { close(block) }) // before the listener's Close, which waits for its handlers
	p, _ := sopsfile.ParseKeyPolicy("hc_vault=" + slow.URL)
	s, _ = decrypt.NewSOPS(decrypt.Options{Keys: p, KeyTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err = s.Decrypt(ctx, hostileFile, vaultFile(slow.URL, "transit"))
	if err == nil || !strings.Contains(err.Error(), "HashiCorp Vault transit key "+slow.URL+"/v1/transit/keys/sops did not answer within 200ms") ||
		strings.Contains(err.Error(), "template") {
		t.Errorf("a Vault that does not answer: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("gave up after %s", d)
	}
	if _, err = s.Decrypt(ctx, hostileFile, vaultFile(slow.URL, "transit")); err == nil || !strings.Contains(err.Error(), "earlier in this run") {
		t.Errorf("the silent Vault, again: %v", err)
	}
	if reqs := slow.Requests(); len(reqs) != 1 {
		t.Errorf("a key service that did not answer was asked again in the run: %v", reqs)
	}
}

// TestAgePlugins: an age plugin recipient in a .sops.yaml rule is refused
// before anything runs, unless the plugin is allowed by name; a plugin
// identity in the environment is not used unless allowed.
func TestAgePlugins(t *testing.T) {
	testtool.UseTestKey(t)
	ran, _ := testtool.FakePrograms(t, "age-plugin-evil")
	recipient := plugin.EncodeRecipient("evil", []byte("payload"))
	config := []byte("creation_rules:\n  - path_regex: manifest\\.yaml$\n    age: " + recipient + "\n")
	_, err := decrypt.CreationRule(config, "manifest.yaml", sopsfile.KeyPolicy{})
	if err == nil || !strings.Contains(err.Error(), "age plugin evil") || !strings.Contains(err.Error(), "--allow-key age-plugin=evil") {
		t.Errorf("plugin recipient: err = %v", err)
	}
	allowed, _ := sopsfile.ParseKeyPolicy("age-plugin=evil")
	rule, err := decrypt.CreationRule(config, "manifest.yaml", allowed)
	if err != nil {
		t.Fatal(err)
	}
	if r := ran(); len(r) > 0 {
		t.Fatalf("ran before encrypting: %v", r)
	}
	if _, err := decrypt.EncryptSecret(rule, []byte("apiVersion: v1\nkind: Secret\nstringData:\n  a: b\n")); err == nil {
		t.Error("the fake plugin fails, and encryption did not")
	}
	if r := ran(); !slices.Equal(r, []string{"age-plugin-evil"}) {
		t.Errorf("the allowed plugin: ran %v", r)
	}

	// A plugin recipient in a file's own age list, first: age decrypts with
	// the identities here, so nothing runs, allowed or not.
	orig := fixtureSecret(t)
	entry := "    age:\n        - recipient: " + plugin.EncodeRecipient("evil", []byte("file")) +
		"\n          enc: |\n            -----BEGIN AGE ENCRYPTED FILE-----\n            AAAA\n            -----END AGE ENCRYPTED FILE-----\n"
	withPlugin := strings.Replace(string(orig), "    age:\n", entry, 1)
	for _, s := range []*decrypt.SOPS{{}, mustSOPS(t, allowed)} {
		if _, err := s.Decrypt(context.Background(), hostileFile, []byte(withPlugin)); err != nil {
			t.Errorf("a file with a plugin recipient beside its own: %v", err)
		}
	}
	if r := ran(); !slices.Equal(r, []string{"age-plugin-evil"}) {
		t.Errorf("decrypting a file with a plugin recipient ran %v", r)
	}

	t.Setenv("SOPS_AGE_KEY", plugin.EncodeIdentity("other", []byte("x")))
	ran, _ = testtool.FakePrograms(t, "age-plugin-other")
	_, err = (&decrypt.SOPS{}).Decrypt(context.Background(), hostileFile, fixtureSecret(t))
	if err != nil {
		t.Errorf("the file key still decrypts: %v", err)
	}
	t.Setenv("SOPS_AGE_KEY_FILE", "")
	os.Unsetenv("SOPS_AGE_KEY_FILE")
	_, err = (&decrypt.SOPS{}).Decrypt(context.Background(), hostileFile, fixtureSecret(t))
	if err == nil || !strings.Contains(err.Error(), `age plugin "other"`) {
		t.Errorf("a plugin identity alone: %v", err)
	}
	if r := ran(); len(r) > 0 {
		t.Errorf("a plugin identity that is not allowed ran: %v", r)
	}
}

func TestParseKeyPolicy(t *testing.T) {
	for _, bad := range []string{"vault", "hc_vault=", "age=age1x", "hc_vault=ftp://x", "hc_vault=https://u@x", "hc_vault=https://x?q=1", "nope=x"} {
		if _, err := sopsfile.ParseKeyPolicy(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestAllowedPGP: a PGP key the operator allows decrypts as before (gpg
// runs, with the key of GNUPGHOME); the same key not allowed is refused,
// and the file's error names it.
func TestAllowedPGP(t *testing.T) {
	gpg := testtool.Require(t, "gpg")
	testtool.UseTestKey(t)
	home := os.Getenv("GNUPGHOME")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(gpg, append([]string{"--batch", "--homedir", home}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gpg %v: %v", args, err)
		}
		return out
	}
	t.Cleanup(func() { _ = exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run() })
	run(nil, "--passphrase", "", "--quick-gen-key", "repotool test <test@example.invalid>", "default", "default", "never")
	var fp string
	for _, l := range strings.Split(string(run(nil, "--with-colons", "--list-secret-keys")), "\n") {
		if f := strings.Split(l, ":"); len(f) > 9 && f[0] == "fpr" && fp == "" {
			fp = f[9]
		}
	}
	orig := fixtureSecret(t)
	enc := run(testtool.SOPSDataKey(t, orig), "--trust-model", "always", "--armor", "--encrypt", "-r", fp)
	file := testtool.SOPSWithKeys(t, orig, map[string][]map[string]string{"pgp": {{"fp": fp, "enc": string(enc), "created_at": "2026-11-01T00:00:00Z"}}}, true)

	ctx := context.Background()
	want, err := (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, orig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&decrypt.SOPS{}).Decrypt(ctx, hostileFile, file); err == nil || !strings.Contains(err.Error(), "--allow-key pgp="+fp) {
		t.Errorf("a PGP key not allowed: %v", err)
	}
	policy, err := sopsfile.ParseKeyPolicy("pgp=" + strings.ToLower(fp))
	if err != nil {
		t.Fatal(err)
	}
	s, err := decrypt.NewSOPS(decrypt.Options{Keys: policy})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Decrypt(ctx, hostileFile, file); err != nil || !bytes.Equal(got, want) {
		t.Errorf("an allowed PGP key: %v", err)
	}
}

func mustSOPS(t *testing.T, p sopsfile.KeyPolicy) *decrypt.SOPS {
	t.Helper()
	s, err := decrypt.NewSOPS(decrypt.Options{Keys: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKeyCommandRecipients: the operator's SOPS_AGE_KEY_CMD runs once per
// distinct age recipient, and a file naming a hundred recipients runs it
// for at most maxCommandRecipients of them: the recipients are content.
func TestKeyCommandRecipients(t *testing.T) {
	testtool.UseTestKey(t)
	ran, _ := testtool.FakePrograms(t, "age-key-cmd")
	t.Setenv("SOPS_AGE_KEY_FILE", testtool.TestKey(t))
	t.Setenv("SOPS_AGE_KEY_CMD", "age-key-cmd")
	var entries strings.Builder
	entries.WriteString("    age:\n")
	for i := range 100 {
		fmt.Fprintf(&entries, "        - recipient: age1fake%03d\n          enc: |\n            -----BEGIN AGE ENCRYPTED FILE-----\n"+
			"            AAAA\n            -----END AGE ENCRYPTED FILE-----\n", i)
	}
	file := strings.Replace(string(fixtureSecret(t)), "    age:\n", entries.String(), 1)
	s := &decrypt.SOPS{}
	for range 2 {
		if _, err := s.Decrypt(context.Background(), hostileFile, []byte(file)); err != nil {
			t.Fatalf("the file's own key: %v", err)
		}
	}
	if n := len(ran()); n != 64 {
		t.Errorf("the key command ran %d times for 101 recipients, twice; want 64", n)
	}
}
