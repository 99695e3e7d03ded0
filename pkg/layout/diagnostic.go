package layout

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity of a diagnostic.
type Severity string

const (
	// SeverityError makes the repository unusable as it is: a target cannot
	// render, or a secret is exposed.
	SeverityError Severity = "error"
	// SeverityWarning is probably a mistake but does not stop rendering.
	SeverityWarning Severity = "warning"
)

// Code identifies a kind of layout problem. Codes are stable: tools may
// match on them.
type Code string

// The layout problems Load reports.
const (
	CodeChartMissing       Code = "chart-missing"        // clusters/<c>/<ns>/ exists but namespaces/<ns>/ has no chart
	CodeChartInvalid       Code = "chart-invalid"        // Chart.yaml is not valid YAML or has no name
	CodeNamespaceUnused    Code = "namespace-unused"     // a namespace chart that no cluster deploys
	CodeSecretNotEncrypted Code = "secret-not-encrypted" // a secret values file that is not SOPS-encrypted
	CodeValuesInvalid      Code = "values-invalid"       // a values file that is not a YAML mapping
	CodeSymlinkEscape      Code = "symlink-escape"       // a path that leaves the repository through a symlink
	CodeFileUnrecognized   Code = "file-unrecognized"    // a YAML file in a cluster folder that matches no values pattern
	CodeConfigUnused       Code = "config-unused"        // repotool.yaml configures a cluster or namespace that has no folder
)

// Diagnostic is one problem found in the repository layout.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	// File is the slash-separated path relative to the repository root.
	File string `json:"file"`
	// Line is 1-based; 0 when the problem is not about one line.
	Line int `json:"line,omitempty"`
	// Message says what is wrong. It never quotes a secret value.
	Message string `json:"message"`
	// Hint says what to do about it.
	Hint string `json:"hint,omitempty"`
}

// Location is "file:line", or "file" when there is no line.
func (d Diagnostic) Location() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return d.File
}

// String formats the diagnostic as "file:line: severity: message [code]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Location(), d.Severity, d.Message, d.Code)
}

func sortDiagnostics(ds []Diagnostic) {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
