package lint

import (
	"github.com/repotool/repotool/pkg/finding"
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
