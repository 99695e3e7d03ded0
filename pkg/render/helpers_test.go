package render_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
)

const fixture = "../../testdata/monorepo"

// useTestKey points the SOPS environment at the test-only age key and
// nothing else.
func useTestKey(t testing.TB) { testtool.UseTestKey(t) }

// isolateKeys hides every SOPS key the machine may have.
func isolateKeys(t testing.TB) { testtool.IsolateSOPS(t) }

func loadRepo(t testing.TB, dir string) *layout.Repo {
	t.Helper()
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// secretValues decrypts every secret values file of the fixture (with the
// SOPS library, in memory) and returns their string leaves: the values that
// must never appear where they do not belong.
func secretValues(t *testing.T, repo *layout.Repo) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, tg := range repo.Targets {
		for _, vf := range tg.Values {
			if !vf.Secret || seen[vf.Path] {
				continue
			}
			seen[vf.Path] = true
			out = append(out, leaves(t, decryptFixture(t, vf.Path))...)
		}
	}
	if len(out) < 5 {
		t.Fatalf("expected the fixture to hold secret values, found %d", len(out))
	}
	return out
}

// decryptFixture decrypts a fixture secret file in memory with the SOPS
// library and the key in the environment.
func decryptFixture(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixture, file))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), file, data)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
