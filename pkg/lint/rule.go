package lint

import (
	"slices"
	"strings"
)

// Rule is one check. Rules are values; all of them are listed, sorted by
// ID, in registry.
type Rule struct {
	// ID is stable and kebab-case; suppressions and configuration use it.
	ID string
	// Summary is one line saying what the rule finds.
	Summary string
	// Remediation says what to do about a finding, as a sentence ending in
	// a period.
	Remediation string
	// Severity is the default severity of its findings.
	Severity Severity
	// Description explains the rule for docs/rules.md (Markdown).
	Description string
	// Bad and Good are examples for docs/rules.md.
	Bad, Good Example
	// check reports the rule's findings for in.
	check func(in *Input, report func(Finding))
}

// Example is a documented example: a file name and its content.
type Example struct {
	File    string
	Content string
}

// registry holds every rule, sorted by ID (a test keeps it so).
var registry = []*Rule{
	ruleInvalidSuppression,
	ruleLayout,
	rulePlaintextSecret,
	ruleRender,
	ruleSchema,
	ruleShortnameCollision,
	ruleStrayAPIVersion,
	ruleValuesTypeMismatch,
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule {
	out := make([]Rule, len(registry))
	for i, r := range registry {
		out[i] = *r
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
