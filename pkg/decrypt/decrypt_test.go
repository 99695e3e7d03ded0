package decrypt_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
)

func TestDecryptErrors(t *testing.T) {
	const file = "clusters/dev-cluster/namespace-c/dev-values-c.secret.yaml"
	orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "monorepo", file))
	if err != nil {
		t.Fatal(err)
	}
	wrongKey := filepath.Join(t.TempDir(), "wrong.key")
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wrongKey, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testKey := testtool.TestKey(t)
	tamper := func(key string) []byte {
		i := bytes.Index(orig, []byte(key+": ENC[AES256_GCM,data:"))
		if i < 0 {
			t.Fatalf("fixture has no encrypted %s", key)
		}
		out := bytes.Clone(orig)
		j := i + len(key) + len(": ENC[AES256_GCM,data:")
		if out[j] == 'A' {
			out[j] = 'B'
		} else {
			out[j] = 'A'
		}
		return out
	}
	tests := []struct {
		name   string
		data   []byte
		key    string // SOPS_AGE_KEY_FILE; "" = none
		reason string
	}{
		{"no key", orig, "", "no key is available"},
		{"wrong key", orig, wrongKey, "none of the available keys can decrypt it"},
		{"tampered mac", tamper("mac"), testKey, "changed after it was encrypted"},
		{"tampered value", tamper("PROVIDER_API_KEY"), testKey, "encrypted value was changed"},
		{"not encrypted", []byte("a: b\n"), testKey, "not a SOPS-encrypted YAML file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testtool.IsolateSOPS(t)
			if tt.key != "" {
				t.Setenv("SOPS_AGE_KEY_FILE", tt.key)
			}
			_, err := (&decrypt.SOPS{}).Decrypt(context.Background(), file, tt.data)
			var de *decrypt.Error
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *decrypt.Error", err)
			}
			if de.File != file || !strings.Contains(de.Reason, tt.reason) || de.Hint == "" {
				t.Errorf("got %q, want reason containing %q", err, tt.reason)
			}
			for _, secret := range []string{"pk_sandbox_billing_3e7c19", "whsec_dev_billing_a41b"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks a secret value: %v", err)
				}
			}
		})
	}
	t.Run("empty SOPS_AGE_KEY_CMD does not panic", func(t *testing.T) {
		testtool.IsolateSOPS(t)
		t.Setenv("SOPS_AGE_KEY_CMD", "")
		_, err := (&decrypt.SOPS{}).Decrypt(context.Background(), file, orig)
		var de *decrypt.Error
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want *decrypt.Error", err)
		}
	})
}

// TestAgeIdentitiesInMemory: identities given to NewSOPS decrypt without
// any key in the environment, take the place of the environment's age
// keys, and a malformed one is refused without being quoted.
func TestAgeIdentitiesInMemory(t *testing.T) {
	const file = "clusters/dev-cluster/namespace-c/dev-values-c.secret.yaml"
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "monorepo", file))
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(testtool.TestKey(t))
	if err != nil {
		t.Fatal(err)
	}
	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	testtool.IsolateSOPS(t) // no key anywhere but in memory
	s, err := decrypt.NewSOPS(decrypt.Options{AgeIdentities: []string{other.String(), string(key)}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := s.Decrypt(ctx, file, data)
	if err != nil {
		t.Fatalf("in-memory identity: %v", err)
	}
	if !bytes.Contains(plain, []byte("PROVIDER_API_KEY:")) || bytes.Contains(plain, []byte("ENC[")) {
		t.Errorf("not decrypted:\n%s", plain)
	}

	t.Setenv("SOPS_AGE_KEY_FILE", testtool.TestKey(t)) // the environment could decrypt...
	wrong, err := decrypt.NewSOPS(decrypt.Options{AgeIdentities: []string{other.String()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.Decrypt(ctx, file, data) // ...but the identities given replace it
	var de *decrypt.Error
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "none of the available keys") {
		t.Errorf("wrong in-memory identity: err = %v", err)
	}

	for _, bad := range [][]string{{"AGE-SECRET-KEY-1NOTAKEY"}, {"# only a comment\n"}} {
		_, err := decrypt.NewSOPS(decrypt.Options{AgeIdentities: bad})
		if err == nil || strings.Contains(err.Error(), "NOTAKEY") {
			t.Errorf("NewSOPS(%q) = %v: want an error that does not quote the key", bad, err)
		}
	}
}
