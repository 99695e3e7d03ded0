package sopsfile_test

import (
	"slices"
	"testing"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// TestKeyPolicyAllows: what each kind of allowance admits, and the
// addresses a hostile file could use to look allowed.
func TestKeyPolicyAllows(t *testing.T) {
	p, err := sopsfile.ParseKeyPolicy("hc_vault=https://vault.example.com:8200/v1/sops, azure_kv=https://kv.vault.azure.net",
		"gcp_kms=projects/p/locations/l/keyRings/r kms=arn:aws:kms:eu-west-1:1:key/k+arn:aws:iam::1:role/r pgp=abcd age-plugin=YubiKey")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  sopsfile.Key
		want bool
	}{
		{sopsfile.VaultKey("https://vault.example.com:8200", "sops", "app"), true},
		{sopsfile.VaultKey("https://VAULT.example.com:8200/", "sops", "app"), true},
		{sopsfile.VaultKey("https://vault.example.com:8200", "sops2", "app"), false},
		{sopsfile.VaultKey("https://vault.example.com:8200", "sops/../other", "app"), false},
		{sopsfile.VaultKey("https://vault.example.com:8200@evil.example", "sops", "app"), false},
		{sopsfile.VaultKey("http://vault.example.com:8200", "sops", "app"), false},
		{sopsfile.VaultKey("https://vault.example.com:8200", "sops%2f..", "app"), false},
		{sopsfile.VaultKey("https://vault.example.com:8200?x=", "sops", "app"), false},
		{sopsfile.AzureKey("https://kv.vault.azure.net", "k", "1"), true},
		{sopsfile.AzureKey("https://kv.vault.azure.net.evil.example", "k", "1"), false},
		{sopsfile.Key{Kind: sopsfile.KindGCPKMS, ID: "projects/p/locations/l/keyRings/r/cryptoKeys/k"}, true},
		{sopsfile.Key{Kind: sopsfile.KindGCPKMS, ID: "projects/p/locations/l/keyRings/r2/cryptoKeys/k"}, false},
		{sopsfile.Key{Kind: sopsfile.KindGCPKMS, ID: "projects/p/locations/l/keyRings/r/../../x"}, false},
		{sopsfile.AWSKey("arn:aws:kms:eu-west-1:1:key/k", "arn:aws:iam::1:role/r", ""), true},
		{sopsfile.AWSKey("arn:aws:kms:eu-west-1:1:key/k", "", ""), false},
		{sopsfile.AWSKey("arn:aws:kms:eu-west-1:1:key/k", "arn:aws:iam::1:role/r", "admin"), false},
		{sopsfile.PGPKey("AB CD"), true},
		{sopsfile.PGPKey("ABCE"), false},
		{sopsfile.Key{Kind: sopsfile.KindAgePlugin, ID: "yubikey"}, true},
		{sopsfile.Key{Kind: sopsfile.KindAge, ID: "age1anything"}, true},
		{sopsfile.Key{Kind: sopsfile.KindAge, ID: "age1yubikey1qwt50d05nh5vutpdzmlg5wn80xq5negm4uj9ghv0snvdd3yysf5yw3rhl3t"}, true},
		{sopsfile.Key{Kind: sopsfile.KindAge, ID: "age1tpm1qg86fn5esp30u9h6jy6zvu9gcsvnac09vn8jzjxt8s3qtlcv5h2x287wm36"}, false},
		{sopsfile.Key{Kind: sopsfile.KindAge, ID: "age1pq1qqqqqq"}, true},
		{sopsfile.Key{Kind: sopsfile.KindHCKMS, ID: "x"}, false},
	} {
		if got := p.Allows(tc.key); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.key, got, tc.want)
		}
	}
	if !slices.Equal(p.Allowed(), mustPolicy(t, p.Allowed()...).Allowed()) {
		t.Error("a policy's allowances do not parse back to it")
	}
}

func mustPolicy(t testing.TB, keys ...sopsfile.Key) sopsfile.KeyPolicy {
	t.Helper()
	var entries []string
	for _, k := range keys {
		entries = append(entries, k.String())
	}
	p, err := sopsfile.ParseKeyPolicy(entries...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzParseKeyPolicy: any text parses or is refused without a panic; a
// policy's allowances parse back to themselves and allow themselves.
func FuzzParseKeyPolicy(f *testing.F) {
	for _, s := range []string{"hc_vault=https://v:8200", "kms=arn:x+y|z", "pgp=AB CD", "age-plugin=x", "gcp_kms=projects/p", "a=b", "=", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := sopsfile.ParseKeyPolicy(s)
		if err != nil {
			return
		}
		again := mustPolicy(t, p.Allowed()...)
		if !slices.Equal(p.Allowed(), again.Allowed()) {
			t.Fatalf("%q: %v parses back as %v", s, p.Allowed(), again.Allowed())
		}
		for _, k := range p.Allowed() {
			if k.Kind != sopsfile.KindVault && k.Kind != sopsfile.KindAzureKV && !p.Allows(k) {
				t.Fatalf("%q: %s does not allow itself", s, k)
			}
		}
	})
}
