package lint

import (
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/render"
)

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

// countRendered counts results in s: the targets, those rendered, and those
// rendered with placeholders.
func countRendered(s *finding.Summary, results []*render.Result) {
	s.Targets += len(results)
	for _, r := range results {
		if r.Err == nil {
			s.Rendered++
			if len(r.Placeholders) > 0 {
				s.Placeholders = append(s.Placeholders, r.Target.Name())
			}
		}
	}
}
