package diff_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	yaml "go.yaml.in/yaml/v3"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// commits loads the last two commits of the Git repository in dir, with
// the paths they differ in.
func commits(t *testing.T, dir string) (base, head *layout.Repo, changed []string) {
	t.Helper()
	s, err := scope.LoadSides(context.Background(), dir, scope.SidesOptions{Base: "HEAD~1", Head: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	return s.Base, s.Head, s.Changed
}

// compare diffs the last two commits of the Git repository in dir.
func compare(t *testing.T, dir string) *change.Result {
	t.Helper()
	base, head, changed := commits(t, dir)
	res, err := diff.Run(context.Background(), base, head, changed, diff.Options{Render: render.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	return res
}

// TestFixtureChange commits the fixture repository, changes one cluster
// values file and removes a cluster namespace, and compares the two
// commits: only the affected targets are rendered, the changed object is
// shown with a unified diff, the removed target's objects are removed, and
// no secret value appears.
func TestFixtureChange(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	values := filepath.Join(dir, "clusters/dev-cluster/namespace-a/dev-values-a.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte(strings.Replace(string(data), "LOG_LEVEL: debug", "LOG_LEVEL: info", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "clusters/dev-cluster/dev-envs")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "head")

	res := compare(t, dir)
	var targets []string
	for _, tg := range res.Targets {
		targets = append(targets, tg.Name)
	}
	if strings.Join(targets, " ") != "dev-cluster/dev-envs dev-cluster/namespace-a" {
		t.Errorf("affected targets = %v", targets)
	}
	if !res.Targets[0].Removed || len(res.Targets[1].Files) != 1 {
		t.Errorf("targets = %+v", res.Targets)
	}
	// dev-envs' Applications are removed from the generated objects; its
	// application tier syncs with automated prune: a warning.
	var removedApps []string
	for _, c := range res.ArgoCD {
		if c.Action == "removed" {
			removedApps = append(removedApps, c.Object)
		}
	}
	if strings.Join(removedApps, " ") != "dev-cluster/application-dev-envs-security.yaml dev-cluster/application-dev-envs.yaml dev-cluster/appproject-dev-envs.yaml" {
		t.Errorf("removed Argo CD objects: %v", removedApps)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Application dev-envs (cluster dev-cluster) is removed and syncs with automated prune") {
		t.Errorf("warnings: %v", res.Warnings)
	}
	var sawConfig, sawRemoved bool
	for _, c := range res.Changes {
		switch {
		case c.Target == "dev-cluster/namespace-a" && c.Action == "changed" && strings.Contains(c.Diff, "-  LOG_LEVEL: \"debug\"") && strings.Contains(c.Diff, "+  LOG_LEVEL: \"info\""):
			sawConfig = true
		case c.Object == "apps/v1/Deployment namespace-a/storefront" && strings.Contains(c.Diff, "+        checksum/config: "):
			// the chart rolls the pods when the ConfigMap changes
		case c.Target == "dev-cluster/dev-envs" && c.Action == "removed":
			sawRemoved = true
		case c.Target == "dev-cluster/namespace-a":
			t.Errorf("unexpected change: %+v", c)
		}
	}
	if !sawConfig || !sawRemoved {
		t.Errorf("changes: %+v", res.Changes)
	}
	for _, secret := range fixtureSecrets(t) {
		for _, c := range res.Changes {
			if strings.Contains(c.Diff, secret) {
				t.Errorf("%s: the diff shows a secret value", c.Object)
			}
		}
	}
}

// fixtureSecrets are the decrypted string values of the fixture's secret
// values files, at least 6 characters long.
func fixtureSecrets(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../../testdata/monorepo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".secret.yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), p, data)
		if err != nil {
			return err
		}
		for _, v := range testtool.StringLeaves(t, plain) {
			if len(v) >= 6 {
				out = append(out, v)
			}
		}
		return nil
	})
	if err != nil || len(out) < 3 {
		t.Fatalf("fixture secrets: %d, %v", len(out), err)
	}
	return out
}

// TestSecretChange re-encrypts a fixture secret values file with one value
// changed (with the real sops CLI and the test key): the diff names the
// field that changed and shows neither value, nor anything derived from
// them.
func TestSecretChange(t *testing.T) {
	testtool.UseTestKey(t)
	sops := testtool.SOPS(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	const file = "clusters/dev-cluster/namespace-a/dev-values-a.secret.yaml"
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), file, data)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(plain, &v); err != nil {
		t.Fatal(err)
	}
	payments := v["secrets"].(map[string]any)["storefront-payments"].(map[string]any)
	oldValue := payments["PAYMENTS_API_TOKEN"].(string)
	const newValue = "tok_rotated_canary_7731"
	payments["PAYMENTS_API_TOKEN"] = newValue
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	// sops encrypts in place under the repository's .sops.yaml rules; the
	// plaintext exists only in this test's temporary folder.
	if err := os.WriteFile(filepath.Join(dir, file), out, 0o600); err != nil {
		t.Fatal(err)
	}
	enc := exec.Command(sops, "--encrypt", "--in-place", file)
	enc.Dir = dir
	if msg, err := enc.CombinedOutput(); err != nil {
		t.Fatalf("sops: %v\n%s", err, msg)
	}
	testtool.GitCommit(t, dir, "rotate")

	res := compare(t, dir)
	found := false
	for _, c := range res.Changes {
		if slices.Contains(c.SecretFields, "/stringData/PAYMENTS_API_TOKEN") || slices.Contains(c.SecretFields, "/data/PAYMENTS_API_TOKEN") {
			found = true
		}
		all, _ := json.Marshal(c)
		for _, secret := range []string{oldValue, newValue, base64.StdEncoding.EncodeToString([]byte(oldValue)), base64.StdEncoding.EncodeToString([]byte(newValue))} {
			if strings.Contains(string(all), secret) {
				t.Errorf("%s: the change shows a secret value", c.Object)
			}
		}
	}
	if !found {
		t.Errorf("the rotated token is not reported: %+v", res.Changes)
	}
}

// TestBrokenLayoutAtBase: a change that fixes a broken layout is still
// compared; generate refuses the broken side, which is said, not fatal.
func TestBrokenLayoutAtBase(t *testing.T) {
	files := func(values string) fstest.MapFS {
		return fstest.MapFS{
			"repotool.yaml":                   {Data: []byte("git: {repoURL: https://git.example.com/gitops.git}\n")},
			"namespaces/app/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
			"namespaces/app/templates/a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: \"{{ .Values.a }}\"}\n")},
			"clusters/c1/app/c1-values.yaml":  {Data: []byte(values)},
		}
	}
	load := func(fsys fstest.MapFS) *layout.Repo {
		l, err := layout.Load(context.Background(), fsys, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	res, err := diff.Run(context.Background(), load(files("a: [1\n")), load(files("a: 2\n")), []string{"clusters/c1/app/c1-values.yaml"}, diff.Options{Render: render.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "the layout at base has errors") {
		t.Errorf("warnings: %v", res.Warnings)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "c1/app at base") {
		t.Errorf("errors: %v (the target cannot be rendered at base)", res.Errors)
	}
}

// TestLibraryChartChange changes a label the library chart gives every
// object: every cluster's application and platform targets show their
// objects changed, and nothing else.
func TestLibraryChartChange(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	data, err := os.ReadFile(filepath.Join(dir, "charts/common/templates/_helpers.tpl"))
	if err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, dir, map[string]string{"charts/common/templates/_helpers.tpl": strings.Replace(string(data), "app.kubernetes.io/managed-by: {{ .Release.Service }}", "app.kubernetes.io/managed-by: {{ .Release.Service }}\napp.kubernetes.io/part-of: gitops", 1)})
	testtool.GitCommit(t, dir, "head")
	res := compare(t, dir)
	changedIn := map[string]int{}
	for _, c := range res.Changes {
		if c.Action != "changed" || !strings.Contains(c.Diff, "+    app.kubernetes.io/part-of: gitops") {
			t.Errorf("%s %s: %s", c.Target, c.Object, c.Diff)
		}
		changedIn[c.Target]++
	}
	for _, tg := range res.Targets {
		// The platform charts use the library for a few objects only; the
		// application charts for all of theirs.
		if changedIn[tg.Name] == 0 && !strings.HasSuffix(tg.Name, "cert-manager") && !strings.HasSuffix(tg.Name, "external-secrets") {
			t.Errorf("%s is affected, and shows no changed object", tg.Name)
		}
	}
	if len(changedIn) < 5 {
		t.Errorf("objects changed in %d targets: %v", len(changedIn), changedIn)
	}
}

// TestBatches: comparing the affected targets a few at a time (each
// batch's renderings let go before the next) gives what comparing them all
// at once gives.
func TestBatches(t *testing.T) {
	dir := batchFixture(t)
	whole := compare(t, dir)
	restore := diff.SetBatch(2)
	defer restore()
	batched := compare(t, dir)
	if len(whole.Targets) < 4 || len(whole.Changes) < 3 {
		t.Fatalf("%d affected targets, %d changes: batches of 2 are not tried", len(whole.Targets), len(whole.Changes))
	}
	if !cmp.Equal(whole, batched, cmpopts.EquateEmpty()) {
		t.Errorf("compared in batches of 2 (-all at once +batches):\n%s", cmp.Diff(whole, batched, cmpopts.EquateEmpty()))
	}
}

// TestShardsMerge: a change compared in 2 and 3 parts (each part's report
// through its JSON), merged, is what one run reports; a set of parts that
// is not complete is refused.
func TestShardsMerge(t *testing.T) {
	dir := batchFixture(t)
	base, head, changed := commits(t, dir)
	opts := diff.Options{Render: render.DefaultOptions()}
	whole, err := diff.Run(context.Background(), base, head, changed, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		var reports []*diff.ShardReport
		for i := n; i >= 1; i-- {
			o := opts
			o.Shard = layout.Shard{I: i, N: n}
			r, err := diff.RunShard(context.Background(), base, head, changed, o)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if r, err = diff.ParseShardReport(data); err != nil {
				t.Fatal(err)
			}
			reports = append(reports, r)
		}
		merged, err := diff.Merge(reports)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(whole, merged, cmpopts.EquateEmpty()) {
			t.Errorf("%d parts, merged (-one run +merged):\n%s", n, cmp.Diff(whole, merged, cmpopts.EquateEmpty()))
		}
		if _, err := diff.Merge(reports[1:]); err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("%d parts, one left out: %v", n, err)
		}
	}
}

// batchFixture is the fixture repository at two commits: values changed
// in three namespaces, in both clusters.
func batchFixture(t *testing.T) string {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	for p, edit := range map[string][2]string{
		"namespaces/namespace-a/common-values-a.yaml":             {"containerPort: 8080", "containerPort: 8081"},
		"clusters/prod-cluster/namespace-b/prod-values-b.yaml":    {"replicas: 12", "replicas: 10"},
		"namespaces/cert-manager/common-values-cert-manager.yaml": {"platform-team@", "platform@"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), bytes.Replace(data, []byte(edit[0]), []byte(edit[1]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testtool.GitCommit(t, dir, "head")
	return dir
}
