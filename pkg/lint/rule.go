package lint

import (
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
)

// Rule is one check: its documentation (finding.Rule: ID, summary,
// remediation, severity, examples) and the check itself. Rules are values;
// all of them are listed, sorted by ID, in registry.
type Rule struct {
	finding.Rule
	// check reports the rule's findings for in. It hands the rule's
	// function only the facts that function reads (see input.go); no rule
	// reads the whole input (TestRulesReadNarrowFacts).
	check func(in *input, report func(Finding))
	// facts are what the rule keeps of each rendered object whose parsed
	// content a run lets go, read back with objects.fact (objects.go).
	facts []*fact
	// always: repotool.yaml cannot turn the rule off, nor change its
	// severity (invalid-suppression: a malformed suppression is always
	// reported).
	always bool
}

// ruleOn reports whether repo's configuration leaves rule r on.
func ruleOn(repo *layout.Repo, r *Rule) bool {
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r.always {
		return true
	}
	return override != "off" && (override != "" || !r.Off)
}

// runRule runs one rule (check calls the rule's check with a function
// taking each finding) at the severity repotool.yaml gives it, unless it
// is off there, and hands out each finding.
func runRule(repo *layout.Repo, r *Rule, check func(emit func(Finding)), out func(Finding)) {
	if !ruleOn(repo, r) {
		return
	}
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r.always {
		override = ""
	}
	check(func(f Finding) {
		f.Rule = r.ID
		if f.Severity == "" {
			f.Severity = r.Severity
		}
		if override != "" {
			f.Severity = Severity(override)
		}
		out(f)
	})
}
