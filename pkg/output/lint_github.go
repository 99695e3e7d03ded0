package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/lint"
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

func (lintGitHub) Write(w io.Writer, res *lint.Result, opts LintOptions) error {
	ew := &errWriter{w: w}
	count := map[string]int{}
	var overflow []lint.Finding
	for _, f := range res.Findings {
		level := githubLevel(f.Severity)
		if count[level] >= GitHubAnnotationLimit {
			overflow = append(overflow, f)
			continue
		}
		count[level]++
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeProperty(lint.RepoFile(f.File)))
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
		ew.printf("::notice title=repotool::%d more findings than GitHub shows as annotations (%d per level and step), %s\n", len(overflow), GitHubAnnotationLimit, where)
		for _, f := range overflow {
			ew.printf("%s: %s [%s] %s\n", f.Location(), f.Severity, f.Rule, sarifMessage(f))
		}
	}
	ew.printf("%s\n", summaryLine(res))
	if opts.StepSummary != nil {
		writeStepSummary(opts.StepSummary, res)
	}
	return ew.err
}

func githubLevel(s lint.Severity) string {
	switch s {
	case lint.SeverityError:
		return "error"
	case lint.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// writeStepSummary writes every finding as a Markdown table.
func writeStepSummary(w io.Writer, res *lint.Result) {
	ew := &errWriter{w: w}
	ew.printf("## repotool lint\n\n%s\n\n", summaryLine(res))
	if len(res.Findings) == 0 {
		return
	}
	ew.printf("| severity | rule | location | message |\n|---|---|---|---|\n")
	for _, f := range res.Findings {
		ew.printf("| %s | `%s` | `%s` | %s |\n", f.Severity, f.Rule, f.Location(), markdownCell(sarifMessage(f)))
	}
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
