package finding_test

import (
	"testing"

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
