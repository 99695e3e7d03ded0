package hydrate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

const drySHA = "3ff41cc5247197a6caf50216c4c76cc29d78a97d"

// filesOf are res's files, each one's content expanded.
func filesOf(t *testing.T, res *hydrate.Result) []hydrate.File {
	t.Helper()
	var out []hydrate.File
	for f, err := range res.Files() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

func hydrateDir(t *testing.T, dir string, opts hydrate.Options) (*hydrate.Result, *layout.Repo) {
	t.Helper()
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.DrySHA == "" {
		opts.DrySHA = drySHA
	}
	res, err := hydrate.Hydrate(context.Background(), render.New(repo, render.DefaultOptions()), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	return res, repo
}

// TestHydrateMonorepo: on the fixture, every target that renders no Secret
// gets its manifest.yaml (render's stream, byte for byte), README.md and
// hydrator.metadata; every target that renders one fails, naming the
// Secrets and their templates, and makes no file.
func TestHydrateMonorepo(t *testing.T) {
	testtool.UseTestKey(t)
	res, repo := hydrateDir(t, "../../testdata/monorepo", hydrate.Options{})
	r := render.New(repo, render.DefaultOptions())
	files := map[string][]byte{}
	for _, f := range filesOf(t, res) {
		files[f.Path] = f.Data
	}
	failed := map[string]bool{}
	for _, err := range res.Errors {
		var se *hydrate.SecretError
		if !errors.As(err, &se) || len(se.Secrets) == 0 || !strings.Contains(err.Error(), "Secret ") {
			t.Errorf("a failure that is not about Secrets: %v", err)
			continue
		}
		failed[se.Target] = true
	}
	if len(failed) == 0 || len(failed) == len(repo.Targets) {
		t.Fatalf("%d of %d targets failed: the fixture has targets with and without Secrets", len(failed), len(repo.Targets))
	}
	for _, tg := range repo.Targets {
		dir := tg.Cluster + "/" + tg.Namespace + "/"
		if failed[tg.Name()] {
			if files[dir+hydrate.ManifestFile] != nil {
				t.Errorf("%s failed and has files", tg.Name())
			}
			continue
		}
		rr, err := r.Render(context.Background(), &tg)
		if err != nil {
			t.Fatal(err)
		}
		if string(files[dir+hydrate.ManifestFile]) != string(rr.Manifest) {
			t.Errorf("%s: manifest.yaml is not render's stream", tg.Name())
		}
		for _, name := range []string{hydrate.ReadmeFile, hydrate.MetadataFile} {
			if !strings.Contains(string(files[dir+name]), drySHA) {
				t.Errorf("%s: %s does not name the dry commit", tg.Name(), name)
			}
		}
	}
	paths := make([]string, res.Len())
	for i, f := range filesOf(t, res) {
		paths[i] = f.Path
	}
	if !slices.IsSorted(paths) || !slices.Contains(paths, hydrate.MetadataFile) || !slices.Contains(paths, hydrate.GitAttributesFile) {
		t.Errorf("files: %v", paths)
	}
}

// TestSecretValuesOutsideSecrets: on testdata/canary, whose templates put
// secret values into a ConfigMap in every encoding and into a custom
// resource, hydrate fails the target naming each field, and no message
// holds any form of a secret value.
func TestSecretValuesOutsideSecrets(t *testing.T) {
	testtool.UseTestKey(t)
	res, _ := hydrateDir(t, "../../testdata/canary", hydrate.Options{})
	var leaky *hydrate.SecretError
	for _, err := range res.Errors {
		for _, frag := range []string{"Canary", "CANARY", "Qz7", "Q2FuYXJ5"} {
			if strings.Contains(err.Error(), frag) {
				t.Errorf("a message holds a secret value (%q): %v", frag, err)
			}
		}
		var se *hydrate.SecretError
		if errors.As(err, &se) && se.Target == "dev/leaky" {
			leaky = se
		}
	}
	if leaky == nil {
		t.Fatalf("dev/leaky did not fail: %v", res.Errors)
	}
	for _, want := range []string{"ConfigMap ", "/data/", "namespaces/leaky/templates/cm.yaml", "namespaces/leaky/templates/widget.yaml"} {
		if !strings.Contains(strings.Join(leaky.Fields, "\n"), want) {
			t.Errorf("the fields do not name %q:\n%s", want, strings.Join(leaky.Fields, "\n"))
		}
	}
	for _, f := range filesOf(t, res) {
		if strings.Contains(string(f.Data), "Canary") {
			t.Errorf("%s holds a secret value", f.Path)
		}
	}
}

// TestSync: the files are written once, left alone when nothing changed
// (byte-identical runs), the files of a target that is gone are removed
// with its folder, other files are kept, and nothing is written or
// removed while a target fails.
func TestSync(t *testing.T) {
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: {{ .Values.v | quote }}\n",
		"namespaces/a/README.md":           "a chart's own readme\n",
		"clusters/dev/a/dev-values-a.yaml": "v: one\n",
		"clusters/prd/a/prd-values-a.yaml": "v: two\n",
	})
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "kept.txt"), []byte("not hydrate's\n"), 0o644)
	first, _ := hydrateDir(t, repo, hydrate.Options{RepoURL: "https://example.com/gitops.git"})
	rep, err := first.Sync(out)
	if err != nil || len(rep.Written) != 8 || len(rep.Unchanged) != 0 {
		t.Fatalf("first sync: %+v, %v", rep, err)
	}
	again, _ := hydrateDir(t, repo, hydrate.Options{RepoURL: "https://example.com/gitops.git"})
	if rep, err = again.Sync(out); err != nil || len(rep.Written) != 0 || len(rep.Unchanged) != 8 {
		t.Fatalf("second sync: %+v, %v", rep, err)
	}
	// A new dry commit that changes no manifest changes no file, as in
	// Argo CD: the companions follow their manifest.
	newDry, _ := hydrateDir(t, repo, hydrate.Options{RepoURL: "https://example.com/gitops.git", DrySHA: "1111111111111111111111111111111111111111"})
	if rep, err = newDry.Sync(out); err != nil || len(rep.Written) != 0 {
		t.Fatalf("sync of a new dry commit with the same manifests: %+v, %v", rep, err)
	}
	os.RemoveAll(filepath.Join(repo, "clusters", "prd"))
	gone, _ := hydrateDir(t, repo, hydrate.Options{RepoURL: "https://example.com/gitops.git", DrySHA: "2222222222222222222222222222222222222222"})
	if rep, err = gone.Sync(out); err != nil || len(rep.Removed) != 3 || !slices.Contains(rep.Written, hydrate.MetadataFile) {
		t.Fatalf("sync without prd: %+v, %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(out, "prd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder of a target that is gone is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "kept.txt")); err != nil {
		t.Errorf("a file that is not hydrate's was removed: %v", err)
	}
	// Hydrating into the repository itself never removes a chart's files.
	if _, err := gone.Sync(repo); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "namespaces", "a", "README.md")); err != nil {
		t.Errorf("a chart's README.md was removed: %v", err)
	}
	testtool.WriteFiles(t, repo, map[string]string{"namespaces/a/templates/cm.yaml": "{{ fail \"broken\" }}\n"})
	broken, _ := hydrateDir(t, repo, hydrate.Options{})
	before, _ := os.ReadFile(filepath.Join(out, "dev", "a", hydrate.ManifestFile))
	if _, err := broken.Sync(out); !errors.Is(err, hydrate.ErrFailedTargets) {
		t.Fatalf("sync with a failed target: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "dev", "a", hydrate.ManifestFile)); string(after) != string(before) || len(before) == 0 {
		t.Error("a failed hydration changed the output")
	}
}

// TestCheck: Check reports nothing for the output Sync wrote, and every
// file that differs from a fresh hydration: a manifest edited by hand, one
// deleted, and the files of a target that is gone; it changes nothing.
func TestCheck(t *testing.T) {
	repo, out := twoTargets(t), t.TempDir()
	res, _ := hydrateDir(t, repo, hydrate.Options{})
	if _, err := res.Sync(out); err != nil {
		t.Fatal(err)
	}
	if rep, err := res.Check(os.DirFS(out), ""); err != nil || rep.Len() != 0 {
		t.Fatalf("check of a fresh output: %+v, %v", rep, err)
	}
	if sha, err := hydrate.DrySHA(out); err != nil || sha != drySHA {
		t.Errorf("DrySHA: %q, %v", sha, err)
	}
	os.WriteFile(filepath.Join(out, "dev", "a", hydrate.ManifestFile), []byte("edited: by hand\n"), 0o644)
	os.Remove(filepath.Join(out, "prd", "a", hydrate.ManifestFile))
	testtool.WriteFiles(t, out, map[string]string{"old/gone/manifest.yaml": "a: 1\n", "old/gone/hydrator.metadata": "{}\n"})
	rep, err := res.Check(os.DirFS(out), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dev/a/manifest.yaml"}; !slices.Equal(rep.Differs, want) {
		t.Errorf("differing: %v, want %v", rep.Differs, want)
	}
	if want := []string{"prd/a/manifest.yaml"}; !slices.Equal(rep.Missing, want) {
		t.Errorf("missing: %v, want %v", rep.Missing, want)
	}
	if want := []string{"old/gone/hydrator.metadata", "old/gone/manifest.yaml"}; !slices.Equal(rep.Stale, want) {
		t.Errorf("stale: %v, want %v", rep.Stale, want)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "dev", "a", hydrate.ManifestFile)); string(data) != "edited: by hand\n" {
		t.Error("Check wrote a file")
	}
}

// TestChangedTargets: with Options.Targets only those targets are
// rendered; the others are Kept, and Sync leaves their files as they are.
func TestChangedTargets(t *testing.T) {
	repo, out := twoTargets(t), t.TempDir()
	all, _ := hydrateDir(t, repo, hydrate.Options{})
	if _, err := all.Sync(out); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "prd", "a", hydrate.ManifestFile), []byte("kept\n"), 0o644)
	some, _ := hydrateDir(t, repo, hydrate.Options{Targets: []string{"dev/a"}, DrySHA: "4444444444444444444444444444444444444444"})
	if !slices.Equal(some.Kept, []string{"prd/a"}) {
		t.Errorf("kept: %v", some.Kept)
	}
	for _, f := range filesOf(t, some) {
		if strings.HasPrefix(f.Path, "prd/") {
			t.Errorf("%s was made for a target left out", f.Path)
		}
	}
	rep, err := some.Sync(out)
	if err != nil || len(rep.Removed) != 0 {
		t.Fatalf("sync: %+v, %v", rep, err)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "prd", "a", hydrate.ManifestFile)); string(data) != "kept\n" {
		t.Errorf("a kept target's manifest changed: %q", data)
	}
}

// twoTargets is a repository of one chart deployed to two clusters.
func twoTargets(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"clusters/dev/a/dev-values-a.yaml": "v: one\n",
		"clusters/prd/a/prd-values-a.yaml": "v: two\n",
	})
	return repo
}

// TestStrict: a target whose rendering calls uuidv4 hydrates, and with
// Options.Strict fails, naming the function, the template and the line;
// the other target is unaffected.
func TestStrict(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  id: {{ uuidv4 | quote }}\n",
		"namespaces/b/Chart.yaml":          "apiVersion: v2\nname: b\nversion: 1.0.0\n",
		"namespaces/b/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
		"clusters/dev/a/dev-values-a.yaml": "{}\n",
		"clusters/dev/b/dev-values-b.yaml": "{}\n",
	})
	if res, _ := hydrateDir(t, repo, hydrate.Options{}); len(res.Errors) != 0 {
		t.Fatalf("without Strict: %v", res.Errors)
	}
	res, _ := hydrateDir(t, repo, hydrate.Options{Strict: true})
	want := "hydrate dev/a: its rendering changes with no commit (--strict): uuidv4 (namespaces/a/templates/cm.yaml:6)"
	if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].Error(), want) {
		t.Errorf("with Strict: %v", res.Errors)
	}
}
