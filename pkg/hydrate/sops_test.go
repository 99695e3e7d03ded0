package hydrate_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// sopsRepo is a copy of the fixture whose .sops.yaml also has a rule for
// the hydrated manifests, for the test key.
func sopsRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(repo, ".sops.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("  - path_regex: (^|/)manifest\\.yaml$\n    age: age1gv5876r2m5p20tl08h4p3fruc2kn47xy4z0h95y3taqqwvfgcu0qfqxvew\n")
	return repo
}

// TestSOPSSecrets: with --secrets sops every Secret of the fixture is
// written SOPS-encrypted, and decrypts (SOPS library, the recipient's
// key) to exactly the Secret render makes; no decrypted value is in any
// file. Hydrating again with the previous output writes the same bytes
// (the ciphertext is kept), and a Secret that changed is encrypted anew
// while the others keep theirs.
func TestSOPSSecrets(t *testing.T) {
	testEncrypted(t, sopsRepo(t), hydrate.SecretsSOPS, func(target string, o, got manifest.Object) {
		plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), "manifest.yaml", got.YAML)
		if err != nil {
			t.Fatalf("%s: %s: %v", target, o.ID(), err)
		}
		p, _ := manifest.Read(plain)
		if len(p) != 1 || !sameContent(p[0].Content, o.Content) {
			t.Errorf("%s: %s does not decrypt to render's Secret", target, o.ID())
		}
	})
}

// testEncrypted hydrates repo with mode, checks the Secrets written
// (checkSecrets, with check), then that hydrating again with the previous
// output writes nothing, and that a Secret that changed (a plain value
// added to namespace-c's, in every cluster) is written anew while the
// other manifests keep their bytes.
func testEncrypted(t *testing.T, repo string, mode hydrate.SecretsMode, check func(target string, secret, got manifest.Object)) {
	t.Helper()
	testtool.UseTestKey(t)
	out := t.TempDir()
	first, loaded := hydrateDir(t, repo, hydrate.Options{Secrets: mode})
	if len(first.Errors) > 0 {
		t.Fatalf("hydrate: %v", first.Errors)
	}
	if _, err := first.Sync(out); err != nil {
		t.Fatal(err)
	}
	checkSecrets(t, loaded, out, first, check)

	again, _ := hydrateDir(t, repo, hydrate.Options{Secrets: mode, Previous: os.DirFS(out)})
	if rep, err := again.Sync(out); err != nil || len(rep.Written) != 0 {
		t.Fatalf("hydrating again wrote %v (%v)", rep.Written, err)
	}

	values, _ := filepath.Glob(filepath.Join(repo, "namespaces", "namespace-c", "common-values-*.yaml"))
	if len(values) == 0 || strings.HasSuffix(values[0], ".secret.yaml") {
		t.Fatalf("no plain common values file in namespace-c: %v", values)
	}
	f, err := os.OpenFile(values[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("secrets:\n  billing-provider:\n    region: eu-west-1\n")
	f.Close()
	third, _ := hydrateDir(t, repo, hydrate.Options{Secrets: mode, Previous: os.DirFS(out)})
	rep, err := third.Sync(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Written {
		if strings.HasSuffix(p, hydrate.ManifestFile) && !strings.Contains(p, "/namespace-c/") {
			t.Errorf("%s was rewritten: its Secrets did not change", p)
		}
	}
	if !strings.Contains(strings.Join(rep.Written, " "), "namespace-c/manifest.yaml") {
		t.Errorf("the changed Secret was not written: %v", rep.Written)
	}
}

// TestSOPSWithoutRule: a .sops.yaml without a rule for the hydrated
// manifests fails every target with a Secret, naming the path and the
// fix; nothing else, and no value.
func TestSOPSWithoutRule(t *testing.T) {
	testtool.UseTestKey(t)
	res, _ := hydrateDir(t, "../../testdata/monorepo", hydrate.Options{Secrets: hydrate.SecretsSOPS})
	if len(res.Errors) == 0 {
		t.Fatal("no target failed")
	}
	for _, err := range res.Errors {
		if !strings.Contains(err.Error(), ".sops.yaml has no creation rule for ") || !strings.Contains(err.Error(), "/manifest.yaml") {
			t.Errorf("%v", err)
		}
	}
	repo, err := layout.LoadDir(context.Background(), t.TempDir(), layout.Options{})
	if err == nil {
		_, err = hydrate.Hydrate(context.Background(), render.New(repo, render.DefaultOptions()), repo, hydrate.Options{DrySHA: drySHA, Secrets: hydrate.SecretsSOPS})
	}
	if err == nil {
		t.Error("a repository without .sops.yaml hydrates with --secrets sops")
	}
}

// checkSecrets checks the output res wrote to out against render's
// renderings of repo: every object but the Secrets is render's, byte for
// byte; each Secret is handed to check with the object written in its
// place; no file holds a value of a Secret's data, as written or decoded.
func checkSecrets(t *testing.T, repo *layout.Repo, out string, res *hydrate.Result, check func(target string, secret, got manifest.Object)) {
	t.Helper()
	r := render.New(repo, render.DefaultOptions())
	var leaves []string
	for _, tg := range repo.Targets {
		rr, err := r.Render(context.Background(), &tg)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, tg.Cluster, tg.Namespace, hydrate.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		got, err := manifest.Read(data)
		if err != nil || len(got) != len(rr.Objects) {
			t.Fatalf("%s: %d objects, want %d (%v)", tg.Name(), len(got), len(rr.Objects), err)
		}
		for i, o := range rr.Objects {
			if o.Kind != "Secret" {
				if string(got[i].YAML) != string(o.YAML) {
					t.Errorf("%s: %s differs from render's", tg.Name(), o.ID())
				}
				continue
			}
			leaves = append(leaves, stringValues(o.Content)...)
			for _, v := range secretData(t, o) {
				leaves = append(leaves, string(v))
			}
			check(tg.Name(), o, got[i])
		}
	}
	if len(leaves) < 5 {
		t.Fatalf("only %d values of Secrets checked", len(leaves))
	}
	for _, f := range filesOf(t, res) {
		for _, v := range leaves {
			if len(v) >= 8 && strings.Contains(string(f.Data), v) {
				t.Errorf("%s holds a value of a Secret's data in plain text", f.Path)
			}
		}
	}
}

func stringValues(content map[string]any) []string {
	var out []string
	for _, k := range []string{"data", "stringData"} {
		m, _ := content[k].(map[string]any)
		for _, v := range m {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func sameContent(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }

// TestSOPSBranchesStable: hydrating the fixture's commit to branches with
// --secrets sops, then the same commit again reading the branches back as
// the previous output, commits nothing: the Secrets keep their ciphertext.
func TestSOPSBranchesStable(t *testing.T) {
	testtool.UseTestKey(t)
	repo := sopsRepo(t)
	testtool.GitCommit(t, repo, "dry")
	r, err := scope.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	git := r.Git()
	sha, _ := git.Commit("HEAD")
	opts := hydrate.BranchOptions{Prefix: "hydrated/", DrySHA: sha, Subject: "dry", Name: "ci", Email: "ci@example.com", When: time.Now()}
	for i, want := range []bool{true, false} {
		res, _ := hydrateDir(t, repo, hydrate.Options{DrySHA: sha, Secrets: hydrate.SecretsSOPS, Previous: r.Branches("hydrated/")})
		commits, err := res.Commit(git, opts)
		if err != nil || len(commits) != 2 {
			t.Fatalf("run %d: %v %+v", i, err, commits)
		}
		for _, c := range commits {
			if c.Committed != want {
				t.Errorf("run %d: %s committed %v, want %v (%v)", i, c.Branch, c.Committed, want, c.Report.Written)
			}
		}
	}
}

// TestSecretsPerCluster: repotool.yaml's hydrate.secrets is each
// cluster's mode: dev-cluster's Secrets are encrypted, prod-cluster's
// targets with Secrets fail; Options.Secrets overrides them all.
func TestSecretsPerCluster(t *testing.T) {
	testtool.UseTestKey(t)
	repo := sopsRepo(t)
	f, err := os.OpenFile(filepath.Join(repo, "repotool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nhydrate:\n  clusters:\n    dev-cluster: {secrets: sops}\n")
	f.Close()
	res, _ := hydrateDir(t, repo, hydrate.Options{})
	if len(res.Errors) == 0 {
		t.Fatal("no target failed")
	}
	for _, err := range res.Errors {
		if !strings.Contains(err.Error(), "hydrate prod-cluster/") {
			t.Errorf("a failure outside prod-cluster: %v", err)
		}
	}
	if all, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSOPS}); len(all.Errors) != 0 {
		t.Errorf("with Options.Secrets sops: %v", all.Errors)
	}
}
