package output

import (
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/lint"
)

// lintText writes one finding per line, "file:line:col: severity [rule]
// message", with the object, template and targets indented below.
type lintText struct{}

func (lintText) Name() string { return "text" }

func (lintText) Write(w io.Writer, res *lint.Result, _ LintOptions) error {
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
	}
	if len(res.Findings) > 0 {
		ew.printf("\n")
	}
	ew.printf("%s\n", summaryLine(res))
	return ew.err
}
