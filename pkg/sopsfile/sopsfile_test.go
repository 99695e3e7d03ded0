package sopsfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/sopsfile"
)

func TestInspectRealFixture(t *testing.T) {
	// Encrypted with the sops CLI and the test-only age key.
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "monorepo", "clusters", "dev-cluster", "namespace-c", "dev-values-c.secret.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := sopsfile.Inspect(data)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	if md.Version == "" || !md.HasMAC || md.EncryptedRegex == "" {
		t.Errorf("metadata = %+v", md)
	}
	if diff := cmp.Diff([]string{"age"}, md.Recipients); diff != "" {
		t.Errorf("recipients (-want +got):\n%s", diff)
	}
}

func TestInspect(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{"plain values", "a: 1\n", sopsfile.ErrNotEncrypted},
		{"empty", "", sopsfile.ErrNotEncrypted},
		{"list", "- a\n", sopsfile.ErrNotEncrypted},
		{"sops is a string", "sops: yes\n", sopsfile.ErrNotEncrypted},
		{"no mac", "a: ENC[x]\nsops:\n  version: 3.9.0\n", sopsfile.ErrNotEncrypted},
		{"no version", "a: ENC[x]\nsops:\n  mac: ENC[y]\n", sopsfile.ErrNotEncrypted},
		{"encrypted", "a: ENC[x]\nsops:\n  mac: ENC[y]\n  version: 3.9.0\n  pgp: [{fp: x}]\n  kms: []\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sopsfile.Inspect([]byte(tt.doc))
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if got := sopsfile.IsEncrypted([]byte(tt.doc)); got != (tt.wantErr == nil) {
				t.Errorf("IsEncrypted = %v", got)
			}
		})
	}
	if _, err := sopsfile.Inspect([]byte("a: [\n")); err == nil || errors.Is(err, sopsfile.ErrNotEncrypted) {
		t.Errorf("invalid YAML: err = %v, want a syntax error", err)
	}
}

func TestIsEncryptedValue(t *testing.T) {
	for s, want := range map[string]bool{
		"ENC[AES256_GCM,data:x,iv:y,tag:z,type:str]": true,
		"ENC[":  false,
		"plain": false,
		"":      false,
	} {
		if got := sopsfile.IsEncryptedValue(s); got != want {
			t.Errorf("IsEncryptedValue(%q) = %v", s, got)
		}
	}
}

func FuzzInspect(f *testing.F) {
	f.Add([]byte("a: ENC[x]\nsops:\n  mac: ENC[y]\n  version: 3.9.0\n"))
	f.Add([]byte("sops: [1]\n"))
	f.Add([]byte("a: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := sopsfile.Inspect(data)
		if err == nil && (md.Version == "" || !md.HasMAC) {
			t.Fatalf("accepted incomplete metadata %+v", md)
		}
		if err != nil && strings.Contains(err.Error(), "ENC[") {
			t.Fatalf("error quotes content: %v", err)
		}
	})
}
