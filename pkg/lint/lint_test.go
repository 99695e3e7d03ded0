package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

const (
	fixture  = "../../testdata/monorepo"
	casesDir = "../../testdata/lint"
)

// useTestKey points SOPS at the test-only age key and nothing else.
func useTestKey(t testing.TB) { testtool.UseTestKey(t) }

// loadCase loads a repository to lint, and the options the tests lint it
// with (offline).
func loadCase(t testing.TB, dir string) (*layout.Repo, lint.Options) {
	t.Helper()
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := lint.DefaultOptions()
	opts.Render.Offline = true
	return repo, opts
}

func lintDir(t testing.TB, dir string) *lint.Result {
	t.Helper()
	repo, opts := loadCase(t, dir)
	res, err := lint.Lint(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRuleCases lints every testdata/lint/<case>/repo and compares the
// findings with testdata/lint/<case>/findings.json. A case named after a
// rule must produce findings of that rule.
func TestRuleCases(t *testing.T) {
	useTestKey(t)
	cases, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			res := lintDir(t, filepath.Join(casesDir, c.Name(), "repo"))
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(casesDir, c.Name(), "findings.json"), append(got, '\n'))
			if _, ok := lint.RuleByID(c.Name()); ok {
				found := false
				for _, f := range res.Findings {
					found = found || f.Rule == c.Name()
				}
				if !found {
					t.Errorf("case %s produced no %s finding", c.Name(), c.Name())
				}
			}
			assertNoSecrets(t, got)
		})
	}
}

// secretsInCases are plaintext values of the lint cases' secret files and
// plain-text secrets: no finding may print them.
var secretsInCases = []string{"hunter2", "sk_live_fixture_51", "tok_fixture_9f2", "s3cr3t-in-template", "vault-root-fixture"}

func assertNoSecrets(t *testing.T, out []byte) {
	t.Helper()
	for _, s := range secretsInCases {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("output contains the secret value %q", s)
		}
	}
}

// TestFixtureLints: the fixture's findings are two warnings. Its prod
// replica count, which the cluster's admission policy (rolled out with
// Warn) warns about, at the values line that sets it; and prod's
// always-pull-images MutatingAdmissionPolicy changing namespace-b's
// imagePullPolicy, which the chart sets (namespace-a's prod values set
// what the policy sets, and have no finding).
func TestFixtureLints(t *testing.T) {
	useTestKey(t)
	res := lintDir(t, fixture)
	ok := len(res.Findings) == 2 && res.Summary.Rendered == 11
	if ok {
		drift, policy := res.Findings[0], res.Findings[1]
		if drift.Rule != "admission-drift" {
			drift, policy = policy, drift
		}
		ok = policy.Rule == "admission-policy" && policy.File == "clusters/prod-cluster/namespace-b/prod-values-b.yaml" && policy.Line == 3 &&
			policy.Severity == lint.SeverityWarning && drift.Rule == "admission-drift" && drift.Object == "apps/v1/Deployment namespace-b/orders-api" &&
			drift.Severity == lint.SeverityWarning && strings.Contains(drift.Message, "/spec/template/spec/containers/0/imagePullPolicy") &&
			strings.Contains(drift.Message, "Application namespace-b")
	}
	if !ok {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("fixture findings:\n%s", b)
	}
	if res.ExitCode(lint.SeverityError) != 0 || res.ExitCode(lint.SeverityWarning) != 1 {
		t.Error("exit codes: want 0 at --fail-on error, 1 at warning")
	}
}

func TestLintDeterministic(t *testing.T) {
	useTestKey(t)
	dir := filepath.Join(casesDir, "plaintext-secret", "repo")
	first, _ := json.Marshal(lintDir(t, dir))
	for range 3 {
		again, _ := json.Marshal(lintDir(t, dir))
		if !bytes.Equal(first, again) {
			t.Fatal("lint output differs between runs")
		}
	}
}

func TestExitCode(t *testing.T) {
	res := &lint.Result{Report: finding.Report{Findings: []lint.Finding{{Rule: "x", Severity: lint.SeverityWarning}}}}
	if res.ExitCode(lint.SeverityError) != 0 || res.ExitCode(lint.SeverityWarning) != 1 || res.ExitCode(lint.SeverityInfo) != 1 {
		t.Error("ExitCode thresholds wrong")
	}
	if _, err := lint.ParseSeverity("fatal"); err == nil || !strings.Contains(err.Error(), "error, warning or info") {
		t.Errorf("ParseSeverity error = %v", err)
	}
}

// TestRuleSeverityConfig: lint.rules.<id>.severity replaces the severity of
// every finding of a rule, or turns it off; a rule that does not exist is
// an invalid-suppression finding at its line.
func TestRuleSeverityConfig(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(casesDir, "stray-api-version", "repo"))); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(repo, "repotool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("  rules:\n"), []byte("  rules:\n    stray-api-version: {severity: info}\n    schema: {severity: off}\n    no-such-rule: {severity: error}\n"), 1)
	if err := os.WriteFile(filepath.Join(repo, "repotool.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	res := lintDir(t, repo)
	byRule := map[string][]lint.Severity{}
	for _, f := range res.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f.Severity)
	}
	if len(byRule["stray-api-version"]) < 5 || slices.ContainsFunc(byRule["stray-api-version"], func(s lint.Severity) bool { return s != lint.SeverityInfo }) {
		t.Errorf("stray-api-version severities = %v, want all info", byRule["stray-api-version"])
	}
	if len(byRule["schema"]) != 0 {
		t.Errorf("schema is off but reported %d findings", len(byRule["schema"]))
	}
	if len(byRule["invalid-suppression"]) != 1 || res.ExitCode(lint.SeverityError) != 1 {
		t.Errorf("the unknown rule: %v, exit %d", byRule["invalid-suppression"], res.ExitCode(lint.SeverityError))
	}
}

// TestChecksUseRenderCapabilities: lint judges API versions by what render
// rendered for, Options.Render's API versions and Kubernetes version
// included, not by re-reading repotool.yaml.
func TestChecksUseRenderCapabilities(t *testing.T) {
	fsys := fstest.MapFS{
		"repotool.yaml":                 {Data: []byte("clusters:\n  prod: {kubeVersion: v1.34.0}\n")},
		"namespaces/app/Chart.yaml":     {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"clusters/prod/app/values.yaml": {Data: []byte("{}\n")},
		"namespaces/app/templates/w.yaml": {Data: []byte(`{{- if .Capabilities.APIVersions.Has "acme.io/v1/Widget" }}
apiVersion: acme.io/v1
kind: Widget
metadata: {name: w}
{{- end }}
---
apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: c}
`)},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := lint.DefaultOptions()
	opts.Render.APIVersions = []string{"acme.io/v1/Widget"}
	opts.Render.KubeVersion = "v1.22.0"
	res, err := lint.Lint(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+string(f.Severity)+" "+f.Message)
	}
	// The Widget renders and is declared; on v1.22 batch/v1beta1 CronJob is
	// still served (deprecated), so a warning, not an error.
	want := []string{"stray-api-version warning batch/v1beta1 CronJob is deprecated since Kubernetes 1.21, to be removed in 1.25 (cluster prod runs v1.22.0): use batch/v1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestCompactSameFindings: Lint lets go of the parsed content of objects
// the cross-object rules do not read, keeping their facts, as renderings
// arrive; Check keeps everything. Both give the same findings on every
// rule case and on the fixture.
func TestCompactSameFindings(t *testing.T) {
	useTestKey(t)
	cases, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{fixture}
	for _, c := range cases {
		if c.IsDir() {
			dirs = append(dirs, filepath.Join(casesDir, c.Name(), "repo"))
		}
	}
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(dir))
		if dir == fixture {
			name = "monorepo"
		}
		t.Run(name, func(t *testing.T) {
			compacted := lintDir(t, dir)
			repo, opts := loadCase(t, dir)
			opts.Render.VerifyUnstable = true // as Lint renders
			full := lint.Check(repo, render.New(repo, opts.Render, lint.RenderOptions()...).RenderAll(context.Background(), repo.Targets), opts)
			if len(full.Findings) == 0 && dir != fixture {
				t.Fatal("no findings: the comparison shows nothing") // the fixture is clean
			}
			if !reflect.DeepEqual(compacted.Findings, full.Findings) {
				t.Errorf("findings differ:\n--- compacted\n%v\n--- full\n%v", compacted.Findings, full.Findings)
			}
		})
	}
}

// TestOffByDefault: a rule that is off by default (values-list-replaced)
// reports nothing until repotool.yaml gives it a severity.
func TestOffByDefault(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(casesDir, "values-list-replaced", "repo"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "repotool.yaml"), []byte("clusters:\n  prod: {}\n  dev: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range lintDir(t, repo).Findings {
		if f.Rule == "values-list-replaced" {
			t.Errorf("reported while off: %s", f.Message)
		}
	}
}

// TestValuesUnusedNeedsEveryTarget: a common file's key judged on some of
// the targets that use it (lint of one cluster, or of the targets a change
// affects) is not reported: another target may read it.
func TestValuesUnusedNeedsEveryTarget(t *testing.T) {
	repo, opts := loadCase(t, filepath.Join(casesDir, "values-unused", "repo"))
	count := func(o lint.Options) (common int) {
		res, err := lint.Lint(context.Background(), repo, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if f.Rule == "values-unused" && strings.HasPrefix(f.File, "namespaces/") {
				common++
			}
		}
		return common
	}
	if n := count(opts); n != 1 {
		t.Fatalf("all targets: %d findings about the common file, want 1", n)
	}
	opts.Cluster = "new"
	if n := count(opts); n != 0 {
		t.Errorf("cluster new alone: %d findings about the common file, want 0", n)
	}
}
