package lint

import (
	"slices"
	"strings"

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
}

// registry holds every rule, sorted by ID (a test keeps it so).
var registry = []*Rule{
	ruleAdmissionDrift,
	ruleAdmissionPolicy,
	ruleArgoCDExcluded,
	ruleCustomCheck,
	ruleDeprecatedField,
	ruleDuplicateObject,
	ruleInvalidSuppression,
	ruleLayout,
	rulePlaintextSecret,
	ruleProjectPermission,
	ruleRender,
	ruleSchema,
	ruleSecretConflict,
	ruleSecretReference,
	ruleSecretStoreReference,
	ruleShortnameCollision,
	ruleSOPSKeyNotAllowed,
	ruleStrayAPIVersion,
	ruleUnstableRender,
	ruleValuesListReplaced,
	ruleValuesTypeMismatch,
	ruleValuesUnused,
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule {
	out := make([]Rule, len(registry))
	for i, r := range registry {
		out[i] = *r
	}
	return out
}

// Docs returns the documentation of every rule, sorted by ID: what
// formatters (SARIF's rule list) and docs/rules.md show.
func Docs() []finding.Rule {
	out := make([]finding.Rule, len(registry))
	for i, r := range registry {
		out[i] = r.Rule
	}
	return out
}

// RuleByID returns the rule with id.
func RuleByID(id string) (Rule, bool) {
	i, ok := slices.BinarySearchFunc(registry, id, func(r *Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return Rule{}, false
	}
	return *registry[i], true
}
