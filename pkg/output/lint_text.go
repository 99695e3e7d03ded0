package output

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/repotool/repotool/pkg/finding"
)

// lintText writes one finding per line, "file:line:col: severity [rule]
// message", with the object, template and targets indented below, then, for
// each rule that found something, how to fix it and where it is documented.
type lintText struct{}

func (lintText) Name() string { return "text" }

func (lintText) Write(w io.Writer, res *finding.Report, opts LintOptions) error {
	ew := &errWriter{w: w}
	p := painter(opts.Color)
	for _, f := range res.Findings {
		// The first line fits in TextWidth columns; the message goes on
		// below it, indented, as the details do.
		prefix := fmt.Sprintf("%s: %s [%s]", f.Location(), f.Severity, f.Rule)
		ew.printf("%s: %s [%s]", p.paint(ansiBold, f.Location()), p.paint(severityColor(f.Severity), string(f.Severity)), f.Rule)
		first := TextWidth - utf8.RuneCountInString(prefix) - 1
		if first < 30 {
			first = 0 // a long path: the message starts on the next line
		}
		var msg []string
		for i, para := range strings.Split(f.Message, "\n") {
			if i == 0 {
				msg = wrap(para, first, TextWidth-4)
				continue
			}
			msg = append(msg, wrap(para, TextWidth-4, TextWidth-4)...)
		}
		for i, l := range msg {
			if i == 0 && first > 0 {
				ew.printf(" %s", l)
				continue
			}
			ew.printf("\n    %s", l)
		}
		ew.printf("\n")
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
				for i, l := range wrap(fmt.Sprintf("[%s] %s See %s", r.ID, r.Remediation, r.DocURI()), TextWidth-2, TextWidth-4) {
					ew.printf("%s%s\n", strings.Repeat("  ", min(i, 1)+1), l)
				}
			}
		}
		ew.printf("\n")
	}
	ew.printf("%s\n", summaryLine(res))
	return ew.err
}

// TextWidth is the width the text formats fit their first lines in.
const TextWidth = 120

// severityColor is the colour of a severity: error red, warning yellow,
// info cyan.
func severityColor(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return ansiRed
	case finding.SeverityWarning:
		return ansiYellow
	}
	return ansiCyan
}

// wrap breaks s (one line) at spaces into lines of at most first
// characters for the first line (0: none; the text starts on the second)
// and rest for the others. A word longer than a line (a long path) is kept
// whole, on a line of its own.
func wrap(s string, first, rest int) []string {
	var lines []string
	line, width := "", first
	if first <= 0 {
		lines, width = []string{""}, rest
	}
	for _, w := range strings.Split(s, " ") {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line, width = w, rest
		}
	}
	return append(lines, line)
}
