package output

import (
	"io"

	"github.com/repotool/repotool/pkg/finding"
)

// LintJSONVersion is the version of the JSON lint output (docs/ci.md,
// "JSON output"). It changes only when a field changes meaning or goes
// away; new fields may be added without it.
const LintJSONVersion = 1

// lintJSON writes {"schemaVersion": 1, "findings": [...], "summary":
// {...}}: the finding.Report with its json tags and each finding's
// fingerprint, indented, the findings written one at a time
// (writeListed).
type lintJSON struct{}

func (lintJSON) Name() string { return "json" }

type jsonFinding struct {
	finding.Finding
	Fingerprint string `json:"fingerprint"`
}

func (lintJSON) Write(w io.Writer, res *finding.Report, _ LintOptions) error {
	shell := struct {
		SchemaVersion int             `json:"schemaVersion"`
		Findings      []jsonFinding   `json:"findings"`
		Summary       finding.Summary `json:"summary"`
	}{SchemaVersion: LintJSONVersion, Findings: []jsonFinding{}, Summary: res.Summary}
	return writeListed(w, &shell, "findings", len(res.Findings), func(i int) any {
		return jsonFinding{res.Findings[i], res.Findings[i].Fingerprint()}
	})
}
