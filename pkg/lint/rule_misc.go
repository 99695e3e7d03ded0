package lint

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

var ruleLayout = &Rule{
	Rule: finding.Rule{
		ID:          "layout",
		Summary:     "The repository layout has a problem: a cluster folder without a chart, an invalid values file, a symlink leaving the repository, ...",
		Remediation: "Fix the file or folder as the finding says; `repotool layout` lists every target and problem.",
		Severity:    SeverityError,
		Description: "Reports the diagnostics of the layout model (see docs/layout.md): `chart-missing`, `chart-invalid`, `values-invalid`, " +
			"`symlink-escape`, `symlink-broken`, `folder-link`, `name-invalid`, `not-a-folder`, `not-a-file`, `too-large`, `unreadable` (errors) and " +
			"`namespace-unused`, `file-unrecognized`, `config-unused`, `values-documents`, `git-ignored` (warnings; `git-ignored` is an error " +
			"with `--strict` or when `$CI` is `true`); and the files lint's own scans read (every " +
			"YAML, JSON, `.tpl` and `.txt` file, for plain manifests, secrets and suppressions) that it cannot read, as `unreadable` errors (not a " +
			"regular file, a link that leads nowhere) or `too-large` warnings (over 32 MiB): no rule checked them. A target with a layout error is " +
			"not rendered (the `render` rule stays silent about it), except for unencrypted secret files, which `plaintext-secret` reports while " +
			"the other rules still check the target.",
		Bad: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `image:
  tag: "1.2.3"
 resources: {}   # bad indentation: not valid YAML
`},
		Good: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `image:
  tag: "1.2.3"
resources: {}
`},
	},
	check: func(in *input, report func(Finding)) { checkLayout(in.repo.Repo.Diagnostics, in.repo.unread, report) },
}

// checkLayout reports the layout's problems, and the files lint's scans
// could not read.
func checkLayout(diags []layout.Diagnostic, unread map[string]error, report func(Finding)) {
	named := map[string]bool{}
	for _, d := range diags {
		named[d.File] = true
		if d.Code == layout.CodeSecretNotEncrypted {
			continue // plaintext-secret reports it
		}
		msg := d.Message + " [" + string(d.Code) + "]"
		if d.Hint != "" {
			msg += "; " + d.Hint
		}
		report(Finding{Severity: d.Severity, File: d.File, Line: d.Line, Message: msg})
	}
	for _, p := range slices.Sorted(maps.Keys(unread)) {
		if !named[p] {
			report(unreadFinding(p, unread[p]))
		}
	}
}

// unreadFinding is a file lint's scans could not read, so that no rule
// checked it: an error, unless it is only too large to read (a warning
// that says how to keep it out of the scans).
func unreadFinding(p string, err error) Finding {
	if errors.Is(err, layout.ErrTooLarge) {
		return Finding{Severity: SeverityWarning, File: p, Message: "lint did not check the file: " + err.Error() + " [" + string(layout.CodeTooLarge) + "]; " +
			"if it holds manifests, split it; otherwise suppress this with a lint.ignore entry for rule layout and its path"}
	}
	return Finding{
		File: p,
		Message: "lint cannot read the file, so no rule checked it: " + err.Error() + " [" + string(layout.CodeUnreadable) + "]; " + layout.ReadHint(
			err,
			"fix or remove it",
		),
	}
}

var ruleRender = &Rule{
	Rule: finding.Rule{
		ID:          "render",
		Summary:     "A target does not render: a template error, a missing dependency, a values or secret file that cannot be read or decrypted.",
		Remediation: "Fix the chart, dependency or values file the finding names; `repotool render --cluster C --namespace N` reproduces it.",
		Severity:    SeverityError,
		Description: "Every target is rendered in process as Argo CD's plugin would render it; a target that fails is reported with the file (and line, for " +
			"template errors) to fix. Nothing else can be checked for that target, so the other rules skip it, except when the only problem is a " +
			"secret values file that cannot be decrypted: the target is then rendered with typed placeholders for that file's values (as " +
			"`--no-decrypt` does), the other rules check it, and the summary lists it. Messages never contain decrypted values: for a target with " +
			"secret values they come from a rendering with placeholders, or withhold Helm's message when only the real values fail.",
		Bad: Example{
			File:    "namespaces/shop/templates/deployment.yaml",
			Content: "image: {{ required \"image.tag is required\" .Values.image.tag }}   # no cluster sets image.tag\n",
		},
		Good: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `image:
  tag: "1.2.3"
`},
	},
	check: func(in *input, report func(Finding)) { checkRender(in.results, in.repo.Repo.Diagnostics, report) },
}

// checkRender reports the targets that failed to render, and the secret
// files a target was checked with placeholders for.
func checkRender(results []*render.Result, diags []layout.Diagnostic, report func(Finding)) {
	for _, res := range results {
		for _, err := range res.Placeholders {
			var de *decrypt.Error
			if errors.As(err, &de) && !layoutNotEncrypted(diags, de.File) {
				report(Finding{File: de.File, Targets: []string{res.Target.Name()},
					Message: err.Error() + "; the other rules checked the target with placeholders for this file's values"})
			}
		}
		var le *layout.Errors
		if res.Err == nil || errors.As(res.Err, &le) {
			continue // layout errors are the layout rule's
		}
		file, line := renderErrorLocation(res)
		report(Finding{File: file, Line: line, Targets: []string{res.Target.Name()}, Message: res.Err.Error()})
	}
}

var ruleInvalidSuppression = &Rule{
	Rule: finding.Rule{
		ID:          invalidSuppression,
		Summary:     "A suppression comment or lint.ignore entry is malformed, has no reason, or names a rule that does not exist.",
		Remediation: "Write `# repotool:ignore <rule-id> <reason>` (or `repotool:ignore-file`) with an existing rule ID and a reason; the reason is required.",
		Severity:    SeverityError,
		Description: "Findings can be suppressed with a comment `# repotool:ignore <rule-id>[,<rule-id>...] <reason>` on the offending line or the line " +
			"above it, `# repotool:ignore-file <rule-id> <reason>` anywhere in the file, and, for files that cannot carry comments (third-party " +
			"charts, archives), with `lint.ignore` entries in repotool.yaml matching rule and path, object or cluster. A suppression without a " +
			"reason, or naming an unknown rule, is itself a finding, and cannot be suppressed.",
		Bad: Example{File: "namespaces/shop/templates/secret.yaml", Content: `# repotool:ignore plaintext-secret
`},
		Good: Example{File: "namespaces/shop/templates/secret.yaml", Content: `# repotool:ignore plaintext-secret the token is a public test fixture, rotated weekly
`},
	},
	check: func(in *input, report func(Finding)) {
		checkSuppressions(in.repo.Repo, in.sup, in.isRule, report)
	},
	always: true,
}

// checkSuppressions reports the malformed suppression comments, and the
// suppressions, lint.rules and lint.ignore entries that name no rule
// (isRule).
func checkSuppressions(repo *layout.Repo, sup *suppressor, isRule func(string) bool, report func(Finding)) {
	for _, f := range sup.problems {
		report(f)
	}
	for _, p := range slices.Sorted(maps.Keys(sup.byFile)) {
		for _, sp := range sup.byFile[p] {
			for _, id := range sp.Rules {
				if !isRule(id) {
					report(Finding{File: p, Line: sp.Line,
						Message: fmt.Sprintf("the suppression names %q, which is not a rule; see docs/rules.md for the rule IDs", id)})
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(repo.Config.Lint.Rules)) {
		line := repo.Config.Lint.Rules[id].Line
		switch {
		case !isRule(id):
			report(Finding{File: repo.ConfigFile, Line: line,
				Message: fmt.Sprintf("lint.rules names %q, which is not a rule; see docs/rules.md for the rule IDs", id)})
		case id == invalidSuppression:
			report(Finding{File: repo.ConfigFile, Line: line,
				Message: "lint.rules cannot configure invalid-suppression: a malformed suppression must always be reported"})
		}
	}
	for i, ig := range sup.cfg {
		if !isRule(ig.Rule) {
			report(Finding{File: repo.ConfigFile, Line: ig.Line,
				Message: fmt.Sprintf("lint.ignore[%d] names %q, which is not a rule; see docs/rules.md for the rule IDs", i, ig.Rule)})
		}
	}
}

// layoutNotEncrypted reports whether the layout found file to be a secret
// file in plain text, which plaintext-secret reports.
func layoutNotEncrypted(diags []layout.Diagnostic, file string) bool {
	for _, d := range diags {
		if d.Code == layout.CodeSecretNotEncrypted && d.File == file {
			return true
		}
	}
	return false
}
