// Package docgen generates the documentation that is derived from code:
// docs/rules.md from the lint rule registry. A test keeps the committed
// files current; refresh them with
//
//	go test ./tools/docgen -update
//
// Inside: documentation generated from code (`docs/rules.md` from the rule
// registry; `docs/images/pr-comment.svg`, the README's picture of the
// pull-request comment, drawn from the markdown diff the CLI test prints),
// with tests that fail when they are stale.
package docgen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/repotool/repotool/pkg/lint"
)

// RulesMarkdown renders docs/rules.md from the rule registry.
func RulesMarkdown() []byte {
	var b bytes.Buffer
	b.WriteString("<!-- Generated from pkg/lint's rule registry by tools/docgen. Do not edit: run `go test ./tools/docgen -update`. -->\n\n")
	b.WriteString("# Lint rules\n\n")
	b.WriteString("`repotool lint` runs every rule below over the repository's files and over what every target renders to. ")
	b.WriteString("Suppress a finding with a comment `# repotool:ignore <rule-id> <reason>` on the offending line or the line above it, ")
	b.WriteString("`# repotool:ignore-file <rule-id> <reason>` anywhere in the file, or a `lint.ignore` entry in repotool.yaml; the reason is required. ")
	b.WriteString("Change a rule's severity, or turn it off, with `lint.rules.<rule-id>.severity: error|warning|info|off` in repotool.yaml (not for " +
		"`invalid-suppression`). See [ci.md](ci.md) for running it in pre-commit and GitHub Actions.\n\n")
	b.WriteString("| rule | severity | finds |\n|---|---|---|\n")
	for _, r := range lint.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, severityOf(r), escapeCell(r.Summary))
	}
	for _, r := range lint.Rules() {
		fmt.Fprintf(&b, "\n## %s\n\n", r.ID)
		fmt.Fprintf(&b, "**Severity:** %s. **Finds:** %s\n\n", severityOf(r), r.Summary)
		fmt.Fprintf(&b, "%s\n\n", r.Description)
		fmt.Fprintf(&b, "**Fix:** %s\n\n", r.Remediation)
		fmt.Fprintf(&b, "Bad (`%s`):\n\n```yaml\n%s```\n\n", r.Bad.File, ensureNewline(r.Bad.Content))
		fmt.Fprintf(&b, "Good (`%s`):\n\n```yaml\n%s```\n", r.Good.File, ensureNewline(r.Good.Content))
	}
	return b.Bytes()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// severityOf is a rule's severity as the docs give it: "off by default"
// for a rule that runs only when repotool.yaml turns it on.
func severityOf(r lint.Rule) string {
	if r.Off {
		return string(r.Severity) + " (off by default)"
	}
	return string(r.Severity)
}
