package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/golden"
	"github.com/repotool/repotool/internal/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

const (
	fixture  = "../../testdata/monorepo"
	casesDir = "../../testdata/lint"
)

// useTestKey points SOPS at the test-only age key and nothing else.
func useTestKey(t testing.TB) { testtool.UseTestKey(t) }

func lintDir(t testing.TB, dir string) *lint.Result {
	t.Helper()
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := lint.DefaultOptions()
	opts.Render.Offline = true
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

// TestFixtureLintsClean: the realistic fixture has no findings.
func TestFixtureLintsClean(t *testing.T) {
	useTestKey(t)
	res := lintDir(t, fixture)
	if len(res.Findings) != 0 || res.Summary.Rendered != 9 {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("fixture is not clean:\n%s", b)
	}
	if res.ExitCode(lint.SeverityWarning) != 0 {
		t.Error("exit code not 0")
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
	res := &lint.Result{Findings: []lint.Finding{{Rule: "x", Severity: lint.SeverityWarning}}}
	if res.ExitCode(lint.SeverityError) != 0 || res.ExitCode(lint.SeverityWarning) != 1 || res.ExitCode(lint.SeverityInfo) != 1 {
		t.Error("ExitCode thresholds wrong")
	}
	if _, err := lint.ParseSeverity("fatal"); err == nil || !strings.Contains(err.Error(), "error, warning or info") {
		t.Errorf("ParseSeverity error = %v", err)
	}
}
