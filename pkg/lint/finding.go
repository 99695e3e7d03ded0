package lint

import (
	"github.com/repotool/repotool/pkg/finding"
)

// The finding model lives in pkg/finding, which formatters and other
// producers of findings share without linking the checks; these names keep
// lint's API whole.
type (
	// Severity of a finding.
	Severity = finding.Severity
	// Finding is one problem. It never contains a secret value.
	Finding = finding.Finding
	// Summary counts a run's findings and targets.
	Summary = finding.Summary
	// Example is a documented example: a file name and its content.
	Example = finding.Example
)

// Severities, most severe first.
const (
	SeverityError   = finding.SeverityError
	SeverityWarning = finding.SeverityWarning
	SeverityInfo    = finding.SeverityInfo
)

// ParseSeverity parses "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) { return finding.ParseSeverity(s) }
