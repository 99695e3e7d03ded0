package output

import (
	"io"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
)

// lintText writes one finding per line, "file:line:col: severity [rule]
// message", with the object, template and targets indented below, then, for
// each rule that found something, how to fix it and where it is documented.
type lintText struct{}

func (lintText) Name() string { return "text" }

func (lintText) Write(w io.Writer, res *finding.Report, opts LintOptions) error {
	ew := &errWriter{w: w}
	for _, f := range res.Findings {
		ew.printf("%s: %s [%s] %s\n", f.Location(), f.Severity, f.Rule, f.Message)
		if f.Object != "" {
			ew.printf("    object: %s\n", f.Object)
		}
		if f.Template != "" {
			ew.printf("    template: %s\n", f.Template)
		}
		if len(f.Targets) > 0 {
			ew.printf("    targets: %s\n", strings.Join(f.Targets, ", "))
		}
		for _, l := range f.Related {
			ew.printf("    related: %s", l)
			if l.Object != "" {
				ew.printf(" %s", l.Object)
			}
			if l.Message != "" {
				ew.printf(": %s", l.Message)
			}
			ew.printf("\n")
		}
	}
	if len(res.Findings) > 0 {
		ew.printf("\nHow to fix:\n")
		for _, r := range rulesOf(opts, res) {
			if slices.ContainsFunc(res.Findings, func(f finding.Finding) bool { return f.Rule == r.ID }) {
				ew.printf("  [%s] %s See %s\n", r.ID, r.Remediation, r.DocURI())
			}
		}
		ew.printf("\n")
	}
	ew.printf("%s\n", summaryLine(res))
	return ew.err
}
