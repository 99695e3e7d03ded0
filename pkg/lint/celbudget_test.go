package lint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/lint"
)

// TestCELBudget: CEL from the repository under review is held to a budget
// for the run. A lint.checks expression that iterates the cluster's
// objects three deep is stopped with one error finding at its line in
// repotool.yaml (the other checks still run), and admission policies that
// spend a cluster's budget are one error finding at the policy, whatever
// their failurePolicy, instead of a long run that ends in exit 0.
func TestCELBudget(t *testing.T) {
	useTestKey(t)
	nested := "    - id: nested\n      expression: \"objects.all(a, objects.all(b, objects.all(c, a.kind != '' || c.kind != '')))\"\n      message: never done\n"
	repo, line := withChecks(t, nested)
	r, opts := loadCase(t, repo)
	opts.CELBudget = 300 // a few objects: a small budget stands for a large cluster
	res, err := lint.Lint(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var budget, others int
	for _, f := range res.Findings {
		switch {
		case strings.Contains(f.Message, "lint.checks nested exceeded the run's CEL cost budget"):
			budget++
			if f.File != "repotool.yaml" || f.Line != line || f.Severity != lint.SeverityError {
				t.Errorf("budget finding at %s:%d (%s), want repotool.yaml:%d, error", f.File, f.Line, f.Severity, line)
			}
		case strings.HasPrefix(f.Message, "no-latest:"):
			others++
		}
	}
	if budget != 1 || others == 0 {
		t.Errorf("%d budget findings (want 1), %d of the other checks' (want some):\n%+v", budget, others, res.Findings)
	}

	r, opts = loadCase(t, filepath.Join(casesDir, "admission-policy", "repo"))
	opts.CELBudget = 20
	res, err = lint.Lint(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var stopped []lint.Finding
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "admission policies exceeded the run's CEL cost budget") {
			stopped = append(stopped, f)
		}
	}
	if len(stopped) == 0 || stopped[0].Severity != lint.SeverityError || !strings.HasSuffix(stopped[0].File, ".yaml") || stopped[0].Line == 0 {
		t.Errorf("policies over the budget: %+v", stopped)
	}
}

// TestCELBudgetOrder: the cluster's objects are admitted on every core,
// but the run's budget runs out at the same object and policy, with the
// same findings before it, whatever the cores and however small the
// budget (as one object after the other would spend it).
func TestCELBudgetOrder(t *testing.T) {
	useTestKey(t)
	run := func(budget int64, procs int) string {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		r, opts := loadCase(t, filepath.Join(casesDir, "admission-drift", "repo"))
		opts.CELBudget = budget
		res, err := lint.Lint(context.Background(), r, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Findings {
			if strings.HasPrefix(f.Rule, "admission-") {
				out = append(out, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Message))
			}
		}
		return strings.Join(out, "\n")
	}
	exhausted := 0
	for _, budget := range []int64{5, 40, 120, 400, 1500, 6000, 0} {
		one, many := run(budget, 1), run(budget, 4)
		if one != many {
			t.Errorf("budget %d: one core and four differ:\n%s\n---\n%s", budget, one, many)
		}
		if strings.Contains(one, "exceeded the run's CEL cost budget") {
			exhausted++
		}
	}
	if exhausted < 3 {
		t.Errorf("the budget ran out in %d runs: the test does not reach it", exhausted)
	}
}

// TestCELBudgetShared: a cluster's admission policies and every check of
// lint.checks share one budget for the run, so that ten costly checks
// spend what one does: one finding, at the check that ran it out, naming
// the costliest spenders.
func TestCELBudgetShared(t *testing.T) {
	useTestKey(t)
	var checks []byte
	for i := range 10 {
		checks = fmt.Appendf(checks, "    - id: nested%d\n      expression: \"objects.all(a, objects.all(b, a.kind != '' || b.kind != ''))\"\n      message: costly\n", i)
	}
	repo, _ := withChecks(t, string(checks))
	r, opts := loadCase(t, repo)
	opts.CELBudget = 300
	res, err := lint.Lint(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var stopped []string
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "exceeded the run's CEL cost budget") {
			stopped = append(stopped, f.Message)
		}
	}
	if len(stopped) != 1 || !strings.Contains(stopped[0], "the costliest were lint.checks nested") ||
		!strings.Contains(stopped[0], "which the cluster's admission policies and lint.checks share") {
		t.Errorf("budget findings, want one naming the costliest:\n%s", strings.Join(stopped, "\n"))
	}
}

// withChecks is a copy of the custom-check case's repository with checks
// (entries of lint.checks) added to its repotool.yaml, and the line the
// first of them starts at.
func withChecks(t *testing.T, checks string) (string, int) {
	t.Helper()
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(casesDir, "custom-check", "repo"))); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(repo, "repotool.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, checks...), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, strings.Count(string(data), "\n") + 2
}
