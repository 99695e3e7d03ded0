package decrypt_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// TestDigestKey: a file's digest key is 32 bytes, the same for every
// reading of the file, another for a file with another data key (each
// encryption makes one), and not the plaintext's; a file the keys here
// cannot open, or one that is not encrypted, is a *decrypt.Error naming
// the file.
func TestDigestKey(t *testing.T) {
	testtool.UseTestKey(t)
	ctx := context.Background()
	config := []byte("creation_rules:\n  - path_regex: manifest\\.yaml$\n    age: " + testRecipient + "\n")
	rule, err := decrypt.CreationRule(config, "manifest.yaml", sopsfile.KeyPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: hunter2-canary\n")
	a, errA := decrypt.EncryptSecret(rule, doc)
	b, errB := decrypt.EncryptSecret(rule, doc)
	if err := errors.Join(errA, errB); err != nil {
		t.Fatal(err)
	}
	var s decrypt.DigestKeyer = &decrypt.SOPS{}
	ka, err := s.DigestKey(ctx, "a.yaml", a)
	if err != nil || len(ka) != 32 {
		t.Fatalf("key of a: %d bytes, %v", len(ka), err)
	}
	again, _ := s.DigestKey(ctx, "a.yaml", a)
	kb, _ := s.DigestKey(ctx, "b.yaml", b)
	switch {
	case !bytes.Equal(ka, again):
		t.Error("two readings of a file give two keys")
	case bytes.Equal(ka, kb):
		t.Error("two data keys give one digest key")
	case bytes.Contains(ka, []byte("hunter2")):
		t.Error("the key holds the plaintext")
	}

	t.Setenv("SOPS_AGE_KEY_FILE", "")
	t.Setenv("SOPS_AGE_KEY", "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ")
	s = &decrypt.SOPS{} // a decrypter reads the environment's identities once
	for name, data := range map[string][]byte{"a.yaml": a, "plain.yaml": doc} {
		_, err := s.DigestKey(ctx, name, data)
		var de *decrypt.Error
		if !errors.As(err, &de) || de.File != name || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
