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
	// Description explains the rule for docs/rules.md (Markdown).
	Description string
	// Bad and Good are examples for docs/rules.md.
	Bad, Good Example
}

// Example is a documented example: a file name and its content.
type Example struct {
	File    string
	Content string
}
