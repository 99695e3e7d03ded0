package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/finding"
)

// LintJSONVersion is the version of the JSON lint output (docs/ci.md,
// "JSON output"). It changes only when a field changes meaning or goes
// away; new fields may be added without it.
const LintJSONVersion = 1

// lintJSON writes {"schemaVersion": 1, "findings": [...], "summary":
// {...}}: the finding.Report with its json tags and each finding's
// fingerprint, indented.
type lintJSON struct{}

func (lintJSON) Name() string { return "json" }

type jsonFinding struct {
	finding.Finding
	Fingerprint string `json:"fingerprint"`
}

func (lintJSON) Write(w io.Writer, res *finding.Report, _ LintOptions) error {
	out := struct {
		SchemaVersion int             `json:"schemaVersion"`
		Findings      []jsonFinding   `json:"findings"`
		Summary       finding.Summary `json:"summary"`
	}{SchemaVersion: LintJSONVersion, Findings: []jsonFinding{}, Summary: res.Summary}
	for _, f := range res.Findings {
		out.Findings = append(out.Findings, jsonFinding{f, f.Fingerprint()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
