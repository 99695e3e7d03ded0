package hydrate_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/hydrate"
)

// TestRecordAndCheckCheckout: Record reads each cluster's mode from the
// output's hydrator.metadata, and a checkout of one cluster's branch (its
// namespaces at the root) is recognised as that cluster's and checks clean
// against that cluster's part of the hydration, telling a missing file
// from one that differs.
func TestRecordAndCheckCheckout(t *testing.T) {
	repo, out := twoTargets(t), t.TempDir()
	res, _ := hydrateDir(t, repo, hydrate.Options{})
	if _, err := res.Sync(out); err != nil {
		t.Fatal(err)
	}
	rec, err := hydrate.Record(os.DirFS(out))
	if err != nil || rec.Cluster != "" || !maps.Equal(rec.Secrets, map[string]hydrate.SecretsMode{"dev": "refuse", "prd": "refuse"}) {
		t.Fatalf("Record of --out: %+v, %v", rec, err)
	}
	checkout := t.TempDir()
	if err := os.CopyFS(checkout, os.DirFS(filepath.Join(out, "dev"))); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{hydrate.MetadataFile, hydrate.GitAttributesFile} {
		data, _ := os.ReadFile(filepath.Join(out, f))
		os.WriteFile(filepath.Join(checkout, f), data, 0o644)
	}
	rec, err = hydrate.Record(os.DirFS(checkout))
	if err != nil || rec.Cluster != "dev" {
		t.Fatalf("Record of a branch's checkout: %+v, %v", rec, err)
	}
	if rep, err := res.Check(os.DirFS(checkout), rec.Cluster); err != nil || rep.Len() != 0 {
		t.Fatalf("Check of a fresh checkout: %+v, %v", rep, err)
	}
	os.WriteFile(filepath.Join(checkout, "a", hydrate.ManifestFile), []byte("by: hand\n"), 0o644)
	os.Remove(filepath.Join(checkout, hydrate.GitAttributesFile))
	rep, err := res.Check(os.DirFS(checkout), rec.Cluster)
	if err != nil || !slices.Equal(rep.Differs, []string{"a/manifest.yaml"}) || !slices.Equal(rep.Missing, []string{".gitattributes"}) {
		t.Errorf("Check of an edited checkout: %+v, %v", rep, err)
	}
	if _, err := res.Check(os.DirFS(checkout), "nope"); err == nil {
		t.Error("Check of a cluster the dry commit does not have")
	}
}

// TestRecordRefuses: an output Record cannot read as one hydration fails
// with what is wrong, rather than being checked as something else.
func TestRecordRefuses(t *testing.T) {
	meta := func(cluster, extra string) string {
		return `{"drySha": "x", "commands": ["repotool render . --cluster ` + cluster + ` --namespace a` + extra + `"]}`
	}
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"two clusters at the root": {map[string]string{"a/hydrator.metadata": meta("dev", ""), "b/hydrator.metadata": meta("prd", "")},
			"clusters dev, prd at its root"},
		"both shapes": {map[string]string{"a/hydrator.metadata": meta("dev", ""), "prd/b/hydrator.metadata": meta("prd", "")}, "neither"},
		"modes disagree": {map[string]string{"dev/a/hydrator.metadata": meta("dev", ""), "dev/b/hydrator.metadata": meta("dev", " --secrets sops")},
			"--secrets"},
		"unknown mode": {map[string]string{"dev/a/hydrator.metadata": meta("dev", " --secrets plain")}, `unknown secrets mode "plain"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testtool.WriteFiles(t, dir, tc.files)
			if rec, err := hydrate.Record(os.DirFS(dir)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Record: %+v, %v; want an error with %q", rec, err, tc.want)
			}
		})
	}
	for name, files := range map[string]map[string]string{
		"no output":  nil,
		"no command": {"dev/a/hydrator.metadata": `{"drySha": "x"}`},
		"not JSON":   {"a/hydrator.metadata": "{"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		testtool.WriteFiles(t, dir, files)
		if rec, err := hydrate.Record(os.DirFS(dir)); err != nil || len(rec.Secrets) != 0 || rec.Cluster != "" {
			t.Errorf("Record of %s: %+v, %v; want nothing recorded", name, rec, err)
		}
	}
}
