package output

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
)

// LintOptions carry what some lint formats need besides the result.
type LintOptions struct {
	// Rules documents the rules (lint.RuleDocs()): SARIF lists them, and the
	// text format gives the remediation of each rule it reports. Without
	// them, SARIF lists the IDs of the reported rules only.
	Rules []finding.Rule
	// ToolVersion is repotool's version, for SARIF.
	ToolVersion string
	// StepSummary, when non-nil, receives a Markdown summary (the github
	// format writes the findings it could not annotate there).
	StepSummary io.Writer
	// PathPrefix is the repository's folder inside its Git repository
	// ("deploy/gitops"; "" at the root). GitHub resolves annotation and
	// SARIF paths from the Git repository's root, so the github and sarif
	// formats put it before every path.
	PathPrefix string
	// Color colours the text format (for a terminal): locations bold,
	// severities red, yellow and cyan.
	Color bool
}

// gitPath is a finding's file as GitHub wants it: relative to the Git
// repository's root, the archive for a file inside a vendored chart.
func (o LintOptions) gitPath(file string) string {
	return path.Join(o.PathPrefix, manifest.ParseSource(file).File)
}

// LintFormatter writes lint findings.
type LintFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats res to w.
	Write(w io.Writer, res *finding.Report, opts LintOptions) error
}

var lintFormatters = []LintFormatter{lintGitHub{}, lintJSON{}, lintSARIF{}, lintText{}}

// LintFormats returns the names of the lint formats, sorted.
func LintFormats() []string {
	return formatNames(lintFormatters)
}

// NewLintFormatter returns the lint formatter called name.
func NewLintFormatter(name string) (LintFormatter, error) {
	return formatNamed(lintFormatters, name)
}

// rulesOf is opts.Rules, or else a bare entry for each rule res reports.
func rulesOf(opts LintOptions, res *finding.Report) []finding.Rule {
	if opts.Rules != nil {
		return opts.Rules
	}
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, f.Rule)
	}
	slices.Sort(ids)
	var out []finding.Rule
	for _, id := range slices.Compact(ids) {
		out = append(out, finding.Rule{ID: id, Severity: finding.SeverityWarning})
	}
	return out
}

// summaryLine is the one-line count every human format ends with.
func summaryLine(res *finding.Report) string {
	s := res.Summary
	if len(res.Findings) == 0 {
		line := fmt.Sprintf("no problems found in %s", count(s.Targets, "target"))
		if s.Suppressed > 0 {
			line += fmt.Sprintf(" (%d suppressed)", s.Suppressed)
		}
		if s.Baselined > 0 {
			line += fmt.Sprintf(" (%d in the baseline)", s.Baselined)
		}
		return line
	}
	line := fmt.Sprintf(
		"%s, %s, %s in %s (%d rendered)",
		count(s.Errors, "error"),
		count(s.Warnings, "warning"),
		count(s.Infos, "info"),
		count(s.Targets, "target"),
		s.Rendered,
	)
	if len(s.Placeholders) > 0 {
		line += fmt.Sprintf("; checked with placeholders for secrets that could not be decrypted: %s", strings.Join(s.Placeholders, ", "))
	}
	if s.Suppressed > 0 {
		line += fmt.Sprintf(", %d suppressed", s.Suppressed)
	}
	if s.Baselined > 0 {
		line += fmt.Sprintf(", %d in the baseline", s.Baselined)
	}
	return line
}

// count is "1 error", "2 errors".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
