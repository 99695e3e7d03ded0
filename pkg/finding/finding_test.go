package finding_test

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/finding"
)

// TestFinish merges findings that differ only by target, orders them by
// location and counts them by severity.
func TestFinish(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{
		{Rule: "b", Severity: finding.SeverityWarning, File: "z.yaml", Line: 1, Message: "m", Targets: []string{"prod/app"}},
		{Rule: "a", Severity: finding.SeverityError, File: "a.yaml", Line: 9, Message: "m"},
		{Rule: "b", Severity: finding.SeverityWarning, File: "z.yaml", Line: 1, Message: "m", Targets: []string{"dev/app", "prod/app"}},
		{Rule: "c", Severity: finding.SeverityInfo, File: "a.yaml", Line: 2, Message: "m"},
	}}
	r.Finish()
	want := []finding.Finding{
		{Rule: "c", Severity: finding.SeverityInfo, File: "a.yaml", Line: 2, Message: "m"},
		{Rule: "a", Severity: finding.SeverityError, File: "a.yaml", Line: 9, Message: "m"},
		{Rule: "b", Severity: finding.SeverityWarning, File: "z.yaml", Line: 1, Message: "m", Targets: []string{"dev/app", "prod/app"}},
	}
	if diff := cmp.Diff(want, r.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if s := r.Summary; s.Errors != 1 || s.Warnings != 1 || s.Infos != 1 {
		t.Errorf("summary = %+v", s)
	}
	if r.ExitCode(finding.SeverityError) != 1 || (&finding.Report{}).ExitCode(finding.SeverityInfo) != 0 {
		t.Error("ExitCode")
	}
}

// TestCount: findings already in their printed order are counted as
// Finish counts them, and left as they are; so is what is left of them.
func TestCount(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{
		{Rule: "b", Severity: finding.SeverityWarning, File: "z.yaml", Message: "m", Targets: []string{"prod/app"}},
		{Rule: "a", Severity: finding.SeverityError, File: "a.yaml", Message: "m"},
		{Rule: "b", Severity: finding.SeverityWarning, File: "z.yaml", Message: "m", Targets: []string{"dev/app"}},
	}}
	r.Finish()
	finished := slices.Clone(r.Findings)
	r.Summary.Errors = 7
	r.Count()
	if diff := cmp.Diff(finished, r.Findings); diff != "" {
		t.Errorf("Count changed the findings (-finished +counted):\n%s", diff)
	}
	if s := r.Summary; s.Errors != 1 || s.Warnings != 1 || s.Infos != 0 {
		t.Errorf("summary = %+v, want 1 error and 1 warning", s)
	}
	r.Findings = r.Findings[1:]
	r.Count()
	if s := r.Summary; s.Errors != 0 || s.Warnings != 1 {
		t.Errorf("summary of the warning left = %+v", s)
	}
}

// TestFingerprint: stable across version bumps in the message, different
// across files.
func TestFingerprint(t *testing.T) {
	a := finding.Finding{Rule: "stray-api-version", Severity: finding.SeverityError, File: "a.yaml", Message: "removed in v1.25"}
	b := a
	b.Message = "removed in v1.26"
	c := a
	c.File = "b.yaml"
	if a.Fingerprint() != b.Fingerprint() || a.Fingerprint() == c.Fingerprint() {
		t.Errorf("fingerprints: %s %s %s", a.Fingerprint(), b.Fingerprint(), c.Fingerprint())
	}
}

// TestFolder: the parts of a run folded one after the other give what
// Finish gives their findings together.
func TestFolder(t *testing.T) {
	rel := []finding.Location{{File: "b.yaml", Line: 3, Target: "dev/app"}}
	parts := [][]finding.Finding{
		{
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Message: "m", Targets: []string{"prod/app"}},
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Column: 2, Message: "m", Targets: []string{"prod/app"}},
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Message: "m", Related: rel, Targets: []string{"prod/b"}},
		},
		{},
		{
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Message: "m", Targets: []string{"dev/app", "prod/app"}},
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Message: "m", Related: rel, Targets: []string{"dev/b"}},
			{Rule: "dup", Severity: finding.SeverityWarning, File: "a.yaml", Line: 1, Message: "m", Targets: []string{"dev/app"}},
			{Rule: "values", Severity: finding.SeverityInfo, File: "v.yaml", Line: 1, Message: "m", Key: "k"},
		},
		{
			{Rule: "values", Severity: finding.SeverityInfo, File: "v.yaml", Line: 1, Message: "m", Key: "k"},
			{Rule: "dup", Severity: finding.SeverityError, File: "a.yaml", Line: 1, Message: "m", Targets: []string{"ci/app"}},
		},
	}
	var all []finding.Finding
	var fo finding.Folder
	for _, p := range parts {
		all = append(all, p...)
		for _, f := range p {
			fo.Add(f)
		}
	}
	want := &finding.Report{Findings: all}
	want.Finish()
	got := fo.Findings()
	if diff := cmp.Diff(want.Findings, got); diff != "" {
		t.Errorf("folded (-Finish +Folder):\n%s", diff)
	}
	if len(got) != 5 || len(got[0].Targets) != 3 {
		t.Errorf("folded into %d findings, the first with targets %v: want 5, and 3 targets", len(got), got[0].Targets)
	}
	if got := (&finding.Folder{}).Findings(); got == nil || len(got) != 0 {
		t.Errorf("empty Folder's findings = %#v, want empty and not nil", got)
	}
}

// TestFolderHoldsNamesOnce: a target or file name many findings give, each
// its own copy, is held once.
func TestFolderHoldsNamesOnce(t *testing.T) {
	var fo finding.Folder
	for i := range 3 {
		target, file := strings.Clone("prod/app"), strings.Clone("a.yaml")
		fo.Add(finding.Finding{Rule: "r", Severity: finding.SeverityError, File: file, Line: i + 1, Message: "m", Targets: []string{target}})
	}
	got := fo.Findings()
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3", len(got))
	}
	for _, f := range got[1:] {
		if unsafe.StringData(f.File) != unsafe.StringData(got[0].File) || unsafe.StringData(f.Targets[0]) != unsafe.StringData(got[0].Targets[0]) {
			t.Errorf("finding at line %d holds its own copy of a name", f.Line)
		}
	}
}
