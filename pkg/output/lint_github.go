package output

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
)

// GitHubAnnotationLimit is how many annotations of one level (error,
// warning, notice) GitHub Actions shows per step; it drops the rest.
const GitHubAnnotationLimit = 10

// lintGitHub writes GitHub Actions workflow commands
// (::error file=...,line=...::message) for the first GitHubAnnotationLimit
// findings of each level, the rest as plain log lines, and, when a step
// summary is available, a Markdown table of every finding there.
type lintGitHub struct{}

func (lintGitHub) Name() string { return "github" }

func (lintGitHub) Write(w io.Writer, res *finding.Report, opts LintOptions) error {
	ew := &errWriter{w: w}
	count := map[string]int{}
	var overflow []finding.Finding
	for _, f := range byImportance(res.Findings) {
		level := githubLevel(f.Severity)
		if count[level] >= GitHubAnnotationLimit {
			overflow = append(overflow, f)
			continue
		}
		count[level]++
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeProperty(opts.gitPath(f.File)))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
				if f.Column > 0 {
					props = append(props, fmt.Sprintf("col=%d", f.Column))
				}
			}
		}
		props = append(props, "title="+escapeProperty("repotool "+f.Rule))
		ew.printf("::%s %s::%s\n", level, strings.Join(props, ","), escapeData(sarifMessage(f)))
	}
	if len(overflow) > 0 {
		where := "listed below"
		if opts.StepSummary != nil {
			where = "listed below and in the job summary"
		}
		ew.printf(
			"::notice title=repotool::%d more findings than GitHub shows as annotations (%d per level and step), %s\n",
			len(overflow),
			GitHubAnnotationLimit,
			where,
		)
		for _, f := range overflow {
			ew.printf("%s: %s [%s] %s\n", f.Location(), f.Severity, f.Rule, sarifMessage(f))
		}
	}
	ew.printf("%s\n", summaryLine(res))
	if opts.StepSummary != nil {
		writeStepSummary(opts.StepSummary, res, opts)
	}
	return ew.err
}

func githubLevel(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// GitHubStepSummaryLimit is the size of a step's job summary above which
// GitHub shows none of it.
const GitHubStepSummaryLimit = 1 << 20

// writeStepSummary writes the findings as a Markdown table, the most
// important first, within GitHubStepSummaryLimit (with room to spare for
// what other steps write), and says how many it left out.
func writeStepSummary(w io.Writer, res *finding.Report, opts LintOptions) {
	var b strings.Builder
	fmt.Fprintf(&b, "## repotool lint\n\n%s\n\n", summaryLine(res))
	if len(res.Findings) > 0 {
		b.WriteString("| severity | rule | location | message |\n|---|---|---|---|\n")
	}
	const budget = GitHubStepSummaryLimit - 64<<10
	findings := byImportance(res.Findings)
	for i, f := range findings {
		loc := f.Location()
		if opts.PathPrefix != "" && f.File != "" {
			loc = path.Join(opts.PathPrefix, loc)
		}
		row := fmt.Sprintf("| %s | `%s` | `%s` | %s |\n", f.Severity, f.Rule, loc, markdownCell(sarifMessage(f)))
		if b.Len()+len(row) > budget {
			fmt.Fprintf(&b, "\n%d more findings are not shown: GitHub shows no job summary over 1 MiB. The step's log lists every finding.\n", len(findings)-i)
			break
		}
		b.WriteString(row)
	}
	io.WriteString(w, b.String())
}

// annotationPriority orders rules for GitHub's annotation budget, SARIF's
// result limit and the job summary: security first, then what stops the
// rest from being checked, then the rest.
var annotationPriority = []string{
	"plaintext-secret",
	"render",
	"layout",
	"schema",
	"stray-api-version",
	"shortname-collision",
	"values-type-mismatch",
	"invalid-suppression",
}

// byImportance returns findings in the order they are worth showing when
// not all can be: errors before warnings before infos, then by rule
// priority, then as given (file order).
func byImportance(findings []finding.Finding) []finding.Finding {
	rank := func(f finding.Finding) int {
		if i := slices.Index(annotationPriority, f.Rule); i >= 0 {
			return i
		}
		return len(annotationPriority)
	}
	sev := map[finding.Severity]int{finding.SeverityError: 0, finding.SeverityWarning: 1, finding.SeverityInfo: 2}
	out := slices.Clone(findings)
	slices.SortStableFunc(out, func(a, b finding.Finding) int {
		return cmp.Or(cmp.Compare(sev[a.Severity], sev[b.Severity]), cmp.Compare(rank(a), rank(b)))
	})
	return out
}

func markdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
