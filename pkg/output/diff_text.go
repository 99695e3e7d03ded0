package output

import (
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
)

type diffText struct{}

func (diffText) Name() string { return "text" }

// ANSI colours of the text diff, as git diff colours a terminal.
const (
	ansiBold   = "1"
	ansiRed    = "31"
	ansiGreen  = "32"
	ansiYellow = "33"
	ansiCyan   = "36"
)

// painter colours text when on.
type painter bool

func (p painter) paint(code, s string) string {
	if !p || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// diffLines colours a unified diff line by line.
func (p painter) diffLines(d string) string {
	if !p {
		return d
	}
	lines := strings.SplitAfter(d, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "+++"), strings.HasPrefix(body, "---"):
			lines[i] = p.paint(ansiBold, body) + nl
		case strings.HasPrefix(body, "@@"):
			lines[i] = p.paint(ansiCyan, body) + nl
		case strings.HasPrefix(body, "+"):
			lines[i] = p.paint(ansiGreen, body) + nl
		case strings.HasPrefix(body, "-"):
			lines[i] = p.paint(ansiRed, body) + nl
		}
	}
	return strings.Join(lines, "")
}

// actionColor is the colour of an action: added green, removed red,
// changed yellow.
func actionColor(action string) string {
	switch action {
	case "added":
		return ansiGreen
	case "removed":
		return ansiRed
	}
	return ansiYellow
}

// Write prints the affected targets with the files that affect them, then
// each changed object, by target, with its unified diff (secret values are
// placeholders; a secret that changed is named by its field), coloured
// with opts.Color.
func (diffText) Write(w io.Writer, res *change.Result, opts DiffOptions) error {
	ew := &errWriter{w: w}
	p := painter(opts.Color)
	if res.NotDecrypted {
		ew.printf("%s\n\n", p.paint(ansiYellow, "secret values were not decrypted (--no-decrypt): a changed secret value is not shown as a change"))
	}
	if len(res.Targets) == 0 && len(res.ArgoCD) == 0 {
		ew.printf("no target is affected\n")
		return ew.err
	}
	ew.printf("%s\n", p.paint(ansiBold, "affected targets:"))
	shown, same := shownTargets(res)
	for _, t := range shown {
		state := ""
		switch {
		case t.Added:
			state = " " + p.paint(ansiGreen, "(added)")
		case t.Removed:
			state = " " + p.paint(ansiRed, "(removed)")
		}
		ew.printf("  %s%s", t.Name, state)
		if len(t.Files) > 0 {
			ew.printf(": %s", strings.Join(t.Files, ", "))
		}
		ew.printf("\n")
	}
	if same > 0 {
		ew.printf("  %s\n", p.paint(ansiCyan, count(same, "more target")+" re-rendered, no change"))
	}
	target := ""
	for _, c := range res.Changes {
		if c.Target != target {
			target = c.Target
			ew.printf("\n%s\n", p.paint(ansiBold, "=== "+target))
		}
		ew.printf("%s %s", p.paint(actionColor(c.Action), c.Action), c.Object)
		if c.APIVersion != "" {
			ew.printf(" (apiVersion %s)", c.APIVersion)
		}
		ew.printf("\n")
		if c.Cause != "" {
			ew.printf("  %s: %s\n", p.paint(ansiYellow, "cause"), c.Cause)
		}
		for _, f := range c.SecretFields {
			ew.printf("  %s: %s (not shown)\n", p.paint(ansiYellow, "secret value changed"), f)
		}
		for _, pv := range c.Provenance {
			ew.printf("  %s %s\n", p.paint(ansiCyan, "from values:"), provenance(pv, res.BaseSide, func(s string) string { return s }))
		}
		for _, a := range c.Admission {
			ew.printf("  %s %s\n", p.paint(ansiCyan, "admitted:"), a)
		}
		if c.Diff != "" {
			ew.printf("%s", p.diffLines(c.Diff))
			if !strings.HasSuffix(c.Diff, "\n") {
				ew.printf("\n")
			}
		}
	}
	if len(res.ArgoCD) > 0 {
		ew.printf("\n%s\n", p.paint(ansiBold, "=== generated Argo CD objects"))
	}
	for _, c := range res.ArgoCD {
		ew.printf("%s %s\n%s", p.paint(actionColor(c.Action), c.Action), c.Object, p.diffLines(c.Diff))
		if !strings.HasSuffix(c.Diff, "\n") {
			ew.printf("\n")
		}
	}
	for _, w := range res.Warnings {
		ew.printf("\n%s %s\n", p.paint(ansiYellow, "warning:"), w)
	}
	for _, e := range res.Errors {
		ew.printf("\n%s %s\n", p.paint(ansiRed, "error:"), e)
	}
	ew.printf("\n%s\n", countsLine(res))
	if len(res.Hidden) > 0 {
		ew.printf("%s\n", hiddenSummary(res.Hidden))
	}
	return ew.err
}
