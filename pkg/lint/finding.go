package lint

import "github.com/repotool/repotool/pkg/finding"

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

// Result is the outcome of a lint run: the findings and their summary.
type Result struct {
	finding.Report

	err error
	// suppressed are the findings suppressions left out (counted in
	// Summary.Suppressed); unused is values-unused's judgment in a
	// sharded run, which Merge decides (ShardReport).
	suppressed []Finding
	unused     *unusedScan
	layout     string // layoutDigest, for ShardReport
}

// Err is a failure of repotool itself during the checks (a schema folder
// that cannot be read, a schema download that fails): not a finding about
// the repository, and the findings are incomplete. The CLI exits 2.
func (r *Result) Err() error { return r.err }
