package hydrate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/hydrate"
)

// TestSealedClusterWithoutFolder: where layout.targets names the namespace
// before the cluster, a cluster has no folder, so it has no default
// certificate: a sealed-secrets.pem at the root is no cluster's, and the
// target fails, asking for hydrate.clusters.<c>.certificate, until that
// names one.
func TestSealedClusterWithoutFolder(t *testing.T) {
	testtool.UseTestKey(t)
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS("../../testdata/adopt/projects")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "sealed-secrets.pem"), []byte(testtool.SealedSecretsCert()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed})
	if len(res.Errors) != 2 {
		t.Fatalf("want the two storefront targets to fail, got %v", res.Errors)
	}
	for _, err := range res.Errors {
		if msg := err.Error(); !strings.Contains(msg, "has no folder") || !strings.Contains(msg, ".certificate") {
			t.Errorf("%v", err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(repo, "repotool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, "hydrate:\n  clusters:\n    eu-1: {certificate: sealed-secrets.pem}\n    us-1: {certificate: sealed-secrets.pem}\n"...)
	if err := os.WriteFile(filepath.Join(repo, "repotool.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed}); len(res.Errors) != 0 {
		t.Errorf("with each cluster's certificate named: %v", res.Errors)
	}
}
