package layout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
)

// Severity of a diagnostic: the severities of findings (pkg/finding), of
// which layout uses two.
type Severity = finding.Severity

const (
	// SeverityError makes the repository unusable as it is: a target cannot
	// render, or a secret is exposed.
	SeverityError = finding.SeverityError
	// SeverityWarning is probably a mistake but does not stop rendering.
	SeverityWarning = finding.SeverityWarning
)

// Code identifies a kind of layout problem. Codes are stable: tools may
// match on them.
type Code string

// The layout problems Load reports.
const (
	CodeChartMissing           Code = "chart-missing"           // clusters/<c>/<ns>/ exists but namespaces/<ns>/ has no chart
	CodeChartInvalid           Code = "chart-invalid"           // Chart.yaml is not valid YAML or has no name
	CodeNamespaceUnused        Code = "namespace-unused"        // a namespace chart that no cluster deploys
	CodeSecretNotEncrypted     Code = "secret-not-encrypted"    // a secret values file that is not SOPS-encrypted
	CodeValuesInvalid          Code = "values-invalid"          // a values file that is not a YAML mapping
	CodeSymlinkEscape          Code = "symlink-escape"          // a path that leaves the repository through a symlink
	CodeSymlinkBroken          Code = "symlink-broken"          // a symlink whose target is missing, or links that loop
	CodeFolderLink             Code = "folder-link"             // a cluster or namespace folder that links into the clusters' folder
	CodeNotAFolder             Code = "not-a-folder"            // a file where a cluster or namespace folder is expected
	CodeNotAFile               Code = "not-a-file"              // a folder named like a values file
	CodeNameInvalid            Code = "name-invalid"            // a cluster or namespace folder whose name is not a DNS label
	CodeTooLarge               Code = "too-large"               // a values file or chart folder over repotool's limits
	CodeUnreadable             Code = "unreadable"              // a file or folder that cannot be read
	CodeFileUnrecognized       Code = "file-unrecognized"       // a YAML file in a cluster folder that matches no values pattern
	CodeConfigUnused           Code = "config-unused"           // repotool.yaml configures a cluster or namespace that has no folder
	CodeValuesDocuments        Code = "values-documents"        // a values file of several YAML documents, read differently by Helm 3 and 4
	CodeGitIgnored             Code = "git-ignored"             // a values file Git ignores in the work tree: Argo CD never sees it
	CodeValuesList             Code = "values-list"             // a target's values list in repotool.yaml cannot be followed (a missing file, overlaps)
	CodeTargetConflict         Code = "target-conflict"         // layout.targets finds two folders for one target, or for one namespace
	CodeApplicationInvalid     Code = "application-invalid"     // an Application of applications.paths that cannot be read or followed
	CodeApplicationUnsupported Code = "application-unsupported" // an Application (or ApplicationSet) whose source repotool does not render yet
	CodeDestinationUnknown     Code = "destination-unknown"     // an Application whose destination is no cluster's, or several clusters'
)

// Diagnostic is one problem found in the repository layout.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	// File is the slash-separated path relative to the repository root.
	File string `json:"file"`
	// Line is 1-based; 0 when the problem is not about one line.
	Line int `json:"line,omitempty"`
	// Message says what is wrong. It never quotes a secret value.
	Message string `json:"message"`
	// Hint says what to do about it.
	Hint string `json:"hint,omitempty"`
}

// Location is "file:line", or "file" when there is no line.
func (d Diagnostic) Location() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return d.File
}

// String formats the diagnostic as "file:line: severity: message [code]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Location(), d.Severity, d.Message, d.Code)
}

// Errors is an error made of error diagnostics: a target, or a repository,
// that the layout cannot load as it is.
type Errors struct {
	// Subject is what cannot be used: "target dev/shop", "the repository".
	Subject     string
	Diagnostics []Diagnostic
}

func (e *Errors) Error() string {
	var b strings.Builder
	n := len(e.Diagnostics)
	fmt.Fprintf(&b, "%s has %d layout error%s", e.Subject, n, plural(n))
	for _, d := range e.Diagnostics {
		b.WriteString("\n    " + d.String())
		if d.Hint != "" {
			b.WriteString("\n      fix: " + d.Hint)
		}
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Err returns the target's layout errors as an *Errors, nil when it has
// none.
func (t *Target) Err() error {
	if len(t.Errors) == 0 {
		return nil
	}
	return &Errors{Subject: "target " + t.Name(), Diagnostics: t.Errors}
}

// Err returns the repository's error diagnostics as an *Errors, nil when
// there are none.
func (r *Repo) Err() error {
	var errs []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &Errors{Subject: "the repository", Diagnostics: errs}
}

// ErrorsOutside returns the error diagnostics that no target carries, at
// or below the repository folder dir ("" or "." for the whole repository):
// what stops a cluster or a namespace from being loaded at all, such as a
// cluster folder replaced by a file. A command that acts on every target
// below dir must fail on them too.
func (r *Repo) ErrorsOutside(dir string) error {
	carried := map[Diagnostic]bool{}
	for _, t := range r.Targets {
		for _, d := range t.Errors {
			carried[d] = true
		}
	}
	var errs []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError && !carried[d] && (dir == "" || dir == "." || within(d.File, dir)) {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	subject := "the repository"
	if dir != "" && dir != "." {
		subject = dir
	}
	return &Errors{Subject: subject + " (outside any target)", Diagnostics: errs}
}

func sortDiagnostics(ds []Diagnostic) {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
