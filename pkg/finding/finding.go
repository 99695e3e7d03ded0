package finding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Severity of a finding.
type Severity string

// Severities, most severe first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 1
	}
	return 0
}

// AtLeast reports whether s is as severe as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.rank() >= t.rank() }

// ParseSeverity parses "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch sev := Severity(s); sev {
	case SeverityError, SeverityWarning, SeverityInfo:
		return sev, nil
	}
	return "", fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// Finding is one problem. It never contains a secret value.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// File is where to fix it, relative to the repository root: a values
	// file when the offending value came from one, else the chart template
	// or manifest. Line and Column are 1-based, 0 when unknown.
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Object is "apiVersion/Kind namespace/name" for findings about an object.
	Object string `json:"object,omitempty"`
	// Template is the chart template (repository path; "archive.tgz!member"
	// inside a vendored chart) that renders the object, when File is not it.
	Template string `json:"template,omitempty"`
	// Targets are the cluster/namespace targets whose rendering has the
	// problem, sorted; empty for findings about repository files alone.
	Targets []string `json:"targets,omitempty"`
	// Related are the other places the problem involves (the other
	// ExternalSecret writing the same Secret, the other target rendering
	// the same object), in a stable order.
	Related []Location `json:"related,omitempty"`
	// Key tells findings of one rule about one file and object apart when
	// the message cannot (it names things that change while the problem
	// stays, such as the clusters and their versions); "" when the message
	// does. See Fingerprint.
	Key string `json:"-"`
}

// Location is a related place of a finding.
type Location struct {
	// File and Line are as in Finding.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Object is the object there, "apiVersion/Kind namespace/name".
	Object string `json:"object,omitempty"`
	// Target is the cluster/namespace target whose rendering holds it; ""
	// for a repository file.
	Target string `json:"target,omitempty"`
	// Message says what the place is ("the first ExternalSecret writing
	// it").
	Message string `json:"message,omitempty"`
}

// String is "file:line (target)" with the parts that are known.
func (l Location) String() string {
	s := l.File
	if s == "" {
		s = "(repository)"
	}
	if l.Line > 0 {
		s += fmt.Sprintf(":%d", l.Line)
	}
	if l.Target != "" {
		s += " (" + l.Target + ")"
	}
	return s
}

// versionRE matches Kubernetes versions in messages ("v1.34.1", "1.22").
var versionRE = regexp.MustCompile(`\bv?\d+\.\d+(?:\.\d+)?\b`)

// Fingerprint identifies a finding across runs: the rule, severity, file,
// object and template, and the Key, or else the message with Kubernetes
// versions taken out. It leaves out the line (an alert survives edits above it),
// the targets and the versions (raising a cluster's kubeVersion re-keys
// nothing).
func (f Finding) Fingerprint() string {
	key := f.Key
	if key == "" {
		key = versionRE.ReplaceAllString(f.Message, "#")
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{f.Rule, string(f.Severity), f.File, f.Object, f.Template, key}, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// Location is "file:line:column" with the parts that are known.
func (f Finding) Location() string {
	switch {
	case f.File == "":
		return "(repository)"
	case f.Line == 0:
		return f.File
	case f.Column == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}

// appendKey appends f's key, which identifies it independently of the
// targets it appears in, to dst: its rule, severity, file, line and
// column, object, template and message, then each related location and
// object, separated by NUL bytes.
func (f Finding) appendKey(dst []byte) []byte {
	for i, s := range [...]string{f.Rule, string(f.Severity), f.File} {
		if i > 0 {
			dst = append(dst, 0)
		}
		dst = append(dst, s...)
	}
	dst = strconv.AppendInt(append(dst, 0), int64(f.Line), 10)
	dst = strconv.AppendInt(append(dst, ':'), int64(f.Column), 10)
	for _, s := range [...]string{f.Object, f.Template, f.Message} {
		dst = append(append(dst, 0), s...)
	}
	for _, r := range f.Related {
		dst = append(append(append(append(dst, 0), r.String()...), 0), r.Object...)
	}
	return dst
}

func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Object, b.Object),
		cmp.Compare(a.Message, b.Message),
		slices.Compare(a.Targets, b.Targets),
	)
}

// Summary counts findings.
type Summary struct {
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Infos      int `json:"infos"`
	Suppressed int `json:"suppressed"`
	Targets    int `json:"targets"`
	// Rendered is how many targets rendered (the others have a render finding).
	Rendered int `json:"rendered"`
	// Placeholders are the rendered targets checked with placeholders for
	// the values of a secret file that could not be decrypted (reported by
	// the render or plaintext-secret rule), in target order.
	Placeholders []string `json:"placeholders,omitempty"`
	// Baselined is how many findings a baseline left out (ApplyBaseline).
	Baselined int `json:"baselined,omitempty"`
}

// Report is a set of findings and their counts, as formatters print it.
type Report struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// ExitCode is 1 when any finding is at or above failOn, else 0.
func (r *Report) ExitCode(failOn Severity) int {
	for _, f := range r.Findings {
		if f.Severity.AtLeast(failOn) {
			return 1
		}
	}
	return 0
}

// Finish puts the findings in their printed order: it merges findings that
// differ only by target, sorts them, and counts them by severity.
func (r *Report) Finish() {
	var fo Folder
	for _, f := range r.Findings {
		fo.Add(f)
	}
	r.Findings = fo.Findings()
	r.Count()
}

// Count counts the findings by severity into the summary: what Finish
// does to findings already in their printed order (a Folder's, or some of
// them), without folding them again (at 20,000 targets, lint's 35,000
// findings twice over).
func (r *Report) Count() {
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos = 0, 0, 0
	for _, f := range r.Findings {
		switch f.Severity {
		case SeverityError:
			r.Summary.Errors++
		case SeverityWarning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
	}
}
