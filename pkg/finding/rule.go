package finding

// Rule documents a check: what it finds, how to fix it, and its default
// severity. Rule IDs are what findings, suppressions and configuration
// name.
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
	// Off: the rule runs only when the configuration gives it a severity
	// (repotool.yaml's lint.rules.<id>.severity).
	Off bool
	// Description explains the rule for docs/rules.md (Markdown).
	Description string
	// Bad and Good are examples for docs/rules.md.
	Bad, Good Example
	// HelpURI is where the rule is documented; empty for repotool's own
	// rules, documented in docs/rules.md.
	HelpURI string
}

// RepotoolRulesURI is where repotool's rules are documented, one anchor
// per rule ID.
const RepotoolRulesURI = "https://github.com/repotool/repotool/blob/main/docs/rules.md#"

// DocURI is where the rule is documented: HelpURI, or its anchor in
// repotool's docs/rules.md.
func (r Rule) DocURI() string {
	if r.HelpURI != "" {
		return r.HelpURI
	}
	return RepotoolRulesURI + r.ID
}

// Example is a documented example: a file name and its content.
type Example struct {
	File    string
	Content string
}
