package lint

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/manifest"
)

// invalidSuppression is the ID of the rule that reports malformed
// suppressions, which no suppression covers.
const invalidSuppression = "invalid-suppression"

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
	if f.Rule == invalidSuppression {
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
	// problems are the malformed suppression comments, as findings
	// (invalid-suppression's).
	problems []Finding
}

// suppressionExts are the endings of the files suppression comments may
// stand in: YAML and template files.
var suppressionExts = []string{".yaml", ".yml", ".tpl", ".txt"}

func (s *suppressor) suppressed(f Finding) bool {
	if f.Rule == invalidSuppression {
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
