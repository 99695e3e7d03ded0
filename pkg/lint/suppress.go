package lint

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/manifest"
)

// SuppressionToken starts a suppression comment:
//
//	# repotool:ignore <rule-id>[,<rule-id>...] <reason>       this line and the next
//	# repotool:ignore-file <rule-id>[,<rule-id>...] <reason>  the whole file
//
// In templates the comment may also be a template comment:
// {{/* repotool:ignore plaintext-secret fixture only */}}.
const SuppressionToken = "repotool:ignore"

// Suppression is one parsed suppression comment.
type Suppression struct {
	Rules  []string
	Reason string
	// Line is the comment's line; Next the next line holding something
	// other than a comment (0 when none). File-wide suppressions have
	// WholeFile set.
	Line, Next int
	WholeFile  bool
}

// SuppressionProblem is a malformed suppression comment.
type SuppressionProblem struct {
	Line    int
	Message string
}

var ruleIDRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ParseSuppressions finds suppression comments in a file's content.
func ParseSuppressions(data []byte) ([]Suppression, []SuppressionProblem) {
	var sups []Suppression
	var probs []SuppressionProblem
	lines := bytes.Split(data, []byte("\n"))
	for i, raw := range lines {
		line := string(raw)
		at := strings.Index(line, SuppressionToken)
		if at < 0 || !isComment(line[:at]) {
			continue
		}
		rest := line[at+len(SuppressionToken):]
		s := Suppression{Line: i + 1}
		if r, ok := strings.CutPrefix(rest, "-file"); ok {
			s.WholeFile, rest = true, r
		} else if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue // some other word, e.g. repotool:ignored
		}
		rest = strings.TrimSpace(trimCommentEnd(rest))
		ids, reason, _ := strings.Cut(rest, " ")
		if ids == "" {
			probs = append(probs, SuppressionProblem{i + 1, "the suppression names no rule: write `" + SuppressionToken + " <rule-id> <reason>`"})
			continue
		}
		bad := false
		for _, id := range strings.Split(ids, ",") {
			if !ruleIDRE.MatchString(id) {
				probs = append(probs, SuppressionProblem{i + 1, fmt.Sprintf("%q is not a rule ID: write `%s <rule-id> <reason>`", id, SuppressionToken)})
				bad = true
				break
			}
			s.Rules = append(s.Rules, id)
		}
		if bad {
			continue
		}
		s.Reason = strings.TrimSpace(reason)
		if s.Reason == "" {
			probs = append(probs, SuppressionProblem{i + 1, "the suppression of " + ids + " has no reason: say why the finding is acceptable after the rule ID"})
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if t := strings.TrimSpace(string(lines[j])); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "{{/*") && !strings.HasPrefix(t, "{{- /*") {
				s.Next = j + 1
				break
			}
		}
		sups = append(sups, s)
	}
	return sups, probs
}

// isComment reports whether the text before the token opens a comment.
func isComment(before string) bool {
	t := strings.TrimRight(before, " \t")
	return strings.HasSuffix(t, "#") || strings.HasSuffix(t, "/*") || strings.HasSuffix(t, "//")
}

func trimCommentEnd(s string) string {
	for _, end := range []string{"-}}", "}}", "*/"} {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), end))
	}
	return s
}

func (s Suppression) covers(f Finding) bool {
	if f.Rule == ruleInvalidSuppression.ID {
		return false
	}
	for _, r := range s.Rules {
		if r == f.Rule {
			return s.WholeFile || (f.Line > 0 && (f.Line == s.Line || f.Line == s.Next))
		}
	}
	return false
}

// suppressor applies comments and configuration ignores.
type suppressor struct {
	byFile map[string][]Suppression
	cfg    []config.LintIgnore
}

// suppressionExts are the endings of the files suppression comments may
// stand in: YAML and template files.
var suppressionExts = []string{".yaml", ".yml", ".tpl", ".txt"}

// loadSuppressions reads suppression comments from every YAML and template
// file of the repository (those readScanned found the token in);
// malformed ones and ones naming unknown rules are reported as
// invalid-suppression findings.
func (r *repoFacts) loadSuppressions(report func(Finding)) *suppressor {
	s := &suppressor{byFile: map[string][]Suppression{}, cfg: r.Repo.Config.Lint.Ignore}
	for _, p := range r.suppressing { // the files that hold the token
		data, _ := r.file(p).Data()
		sups, probs := ParseSuppressions(data)
		for _, pr := range probs {
			report(Finding{Rule: ruleInvalidSuppression.ID, Severity: ruleInvalidSuppression.Severity, File: p, Line: pr.Line, Message: pr.Message})
		}
		for _, sp := range sups {
			for _, id := range sp.Rules {
				if _, ok := RuleByID(id); !ok {
					report(Finding{Rule: ruleInvalidSuppression.ID, Severity: ruleInvalidSuppression.Severity, File: p, Line: sp.Line,
						Message: fmt.Sprintf("the suppression names %q, which is not a rule; see docs/rules.md for the rule IDs", id)})
				}
			}
		}
		s.byFile[p] = sups
	}
	for _, id := range slices.Sorted(maps.Keys(r.Repo.Config.Lint.Rules)) {
		line := r.Repo.Config.Lint.Rules[id].Line
		switch _, ok := RuleByID(id); {
		case !ok:
			report(Finding{Rule: ruleInvalidSuppression.ID, Severity: ruleInvalidSuppression.Severity, File: r.Repo.ConfigFile, Line: line,
				Message: fmt.Sprintf("lint.rules names %q, which is not a rule; see docs/rules.md for the rule IDs", id)})
		case id == ruleInvalidSuppression.ID:
			report(Finding{Rule: ruleInvalidSuppression.ID, Severity: ruleInvalidSuppression.Severity, File: r.Repo.ConfigFile, Line: line,
				Message: "lint.rules cannot configure invalid-suppression: a malformed suppression must always be reported"})
		}
	}
	for i, ig := range s.cfg {
		if _, ok := RuleByID(ig.Rule); !ok {
			report(Finding{Rule: ruleInvalidSuppression.ID, Severity: ruleInvalidSuppression.Severity, File: r.Repo.ConfigFile, Line: ig.Line,
				Message: fmt.Sprintf("lint.ignore[%d] names %q, which is not a rule; see docs/rules.md for the rule IDs", i, ig.Rule)})
		}
	}
	return s
}

func (s *suppressor) suppressed(f Finding) bool {
	if f.Rule == ruleInvalidSuppression.ID {
		return false
	}
	for _, file := range []string{f.File, manifest.ParseSource(f.Template).File} {
		for _, sp := range s.byFile[file] {
			if sp.covers(f) && (file == f.File || sp.WholeFile) {
				return true
			}
		}
	}
	for _, ig := range s.cfg {
		if ig.Rule == f.Rule && matchIgnore(ig, f) {
			return true
		}
	}
	return false
}

func matchIgnore(ig config.LintIgnore, f Finding) bool {
	match := func(pattern, s string) bool {
		ok, _ := path.Match(pattern, s)
		return ok
	}
	if ig.Path != "" && !match(ig.Path, f.File) && !match(ig.Path, manifest.ParseSource(f.Template).File) {
		return false
	}
	if ig.Object != "" && !match(ig.Object, f.Object) {
		return false
	}
	if ig.Cluster != "" {
		found := false
		for _, t := range f.Targets {
			cluster, _, _ := strings.Cut(t, "/")
			found = found || match(ig.Cluster, cluster)
		}
		if !found {
			return false
		}
	}
	return true
}
