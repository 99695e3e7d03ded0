package output_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/xeipuuv/gojsonschema"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/output"
)

// sharedLintResult is the one input every lint format's golden is made
// from: each severity, a finding without a line, one inside an archive,
// targets, text that needs escaping, and more errors than GitHub shows.
func sharedLintResult() *finding.Report {
	res := &finding.Report{Findings: []finding.Finding{
		{Rule: "plaintext-secret", Severity: finding.SeverityError, File: "clusters/prod/shop/prod-values.yaml", Line: 4, Column: 15,
			Object: "v1/Secret shop/db", Template: "namespaces/shop/templates/secret.yaml", Targets: []string{"prod/shop"},
			Message: `Secret shop/db: stringData key "PASSWORD" is rendered from a plain-text value, not from a .secret.yaml file`},
		{Rule: "stray-api-version", Severity: finding.SeverityWarning, File: "namespaces/shop/templates/ingress.yaml", Line: 1,
			Object: "extensions/v1beta1/Ingress shop/web", Targets: []string{"dev/shop", "old/shop"},
			Message: "extensions/v1beta1 Ingress is deprecated since Kubernetes 1.14, to be removed in 1.22 (cluster old runs v1.21.4): use networking.k8s.io/v1"},
		{Rule: "layout", Severity: finding.SeverityWarning, File: "namespaces/legacy/Chart.yaml",
			Message: "namespace \"legacy\" has a chart but no cluster deploys it [namespace-unused]; 100% sure, with a | pipe\nand a newline"},
		{Rule: "stray-api-version", Severity: finding.SeverityInfo, File: "namespaces/shop/charts/redis-7.2.4.tgz!redis/templates/pdb.yaml",
			Message: "informational finding inside a vendored chart"},
		{Rule: "secret-conflict", Severity: finding.SeverityWarning, File: "namespaces/shop/templates/es.yaml", Line: 19,
			Object: "external-secrets.io/v1/ExternalSecret shop/db-migrated", Targets: []string{"prod/shop"},
			Message: "Secret shop/shop-db is written both by ExternalSecret shop/db-migrated (its target) and by ExternalSecret shop/db (its target) in cluster prod: the two would fight over it",
			Related: []finding.Location{{File: "namespaces/shop/templates/es.yaml", Line: 8, Object: "external-secrets.io/v1/ExternalSecret shop/db", Target: "prod/shop", Message: "already writes Secret shop/shop-db"}}},
	}, Summary: lint.Summary{Suppressed: 2, Targets: 3, Rendered: 3}}
	for i := range 11 {
		res.Findings = append(res.Findings, finding.Finding{Rule: "render", Severity: finding.SeverityError,
			File: fmt.Sprintf("namespaces/app%02d/Chart.yaml", i), Targets: []string{fmt.Sprintf("prod/app%02d", i)},
			Message: fmt.Sprintf("render prod/app%02d: chart namespaces/app%02d: dependency %q missing", i, i, "common")})
	}
	res.Summary.Errors, res.Summary.Warnings, res.Summary.Infos = 12, 3, 1
	return res
}

func TestLintFormats(t *testing.T) {
	for _, name := range output.LintFormats() {
		t.Run(name, func(t *testing.T) {
			f, err := output.NewLintFormatter(name)
			if err != nil {
				t.Fatal(err)
			}
			var out, summary bytes.Buffer
			if err := f.Write(&out, sharedLintResult(), output.LintOptions{Rules: lint.RuleDocs(), ToolVersion: "v0.0.0-test", StepSummary: &summary}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "lint."+name+".golden"), out.Bytes())
			if name == "github" {
				golden.Check(t, filepath.Join("testdata", "lint.github-step-summary.golden"), summary.Bytes())
			}
		})
	}
	if _, err := output.NewLintFormatter("xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestSARIFValid validates SARIF output against the official SARIF 2.1.0
// schema (embedded in go-sarif), with findings and with none, and checks
// what GitHub code scanning needs besides the schema.
func TestSARIFValid(t *testing.T) {
	for _, res := range []*finding.Report{sharedLintResult(), {Findings: []finding.Finding{}}} {
		f, _ := output.NewLintFormatter("sarif")
		var out bytes.Buffer
		if err := f.Write(&out, res, output.LintOptions{Rules: lint.RuleDocs()}); err != nil {
			t.Fatal(err)
		}
		result, err := gojsonschema.Validate(gojsonschema.NewStringLoader(sarifSchema(t)), gojsonschema.NewBytesLoader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if !result.Valid() {
			t.Fatalf("SARIF does not validate against the 2.1.0 schema: %v", result.Errors())
		}
		var raw struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID   string `json:"id"`
							Help struct {
								Text string `json:"text"`
							} `json:"help"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID              string            `json:"ruleId"`
					RuleIndex           int               `json:"ruleIndex"`
					PartialFingerprints map[string]string `json:"partialFingerprints"`
					Locations           []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region struct {
								StartLine int `json:"startLine"`
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if len(raw.Runs) != 1 || raw.Runs[0].Results == nil {
			t.Fatal("SARIF needs one run with a results array (empty, not null, when clean)")
		}
		rules := raw.Runs[0].Tool.Driver.Rules
		if len(rules) != len(lint.Rules()) {
			t.Errorf("SARIF lists %d rules, want %d", len(rules), len(lint.Rules()))
		}
		for _, r := range raw.Runs[0].Results {
			if rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("ruleIndex %d does not point at %s", r.RuleIndex, r.RuleID)
			}
			if len(r.PartialFingerprints) == 0 {
				t.Errorf("%s: no fingerprint", r.RuleID)
			}
			for _, l := range r.Locations {
				if l.PhysicalLocation.Region.StartLine < 1 || strings.Contains(l.PhysicalLocation.ArtifactLocation.URI, "!") {
					t.Errorf("%s: location %+v is not usable by GitHub", r.RuleID, l)
				}
			}
		}
	}
}

func TestGitHubAnnotationLimits(t *testing.T) {
	f, _ := output.NewLintFormatter("github")
	var out bytes.Buffer
	if err := f.Write(&out, sharedLintResult(), output.LintOptions{Rules: lint.RuleDocs()}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n::error "); n+boolInt(strings.HasPrefix(out.String(), "::error ")) > output.GitHubAnnotationLimit {
		t.Errorf("%d error annotations, GitHub shows %d per step", n, output.GitHubAnnotationLimit)
	}
	if !strings.Contains(out.String(), "render prod/app10") {
		t.Error("findings beyond the annotation limit are lost")
	}
}

// sarifSchema returns the official OASIS SARIF 2.1.0 JSON schema, as the
// go-sarif module embeds it (a Go string constant in its source), so the
// exact bytes repotool writes are validated offline.
func sarifSchema(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	if err != nil {
		t.Fatalf("locate go-sarif: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.IndexByte(src, '`')
	end := bytes.LastIndexByte(src, '`')
	if start < 0 || end <= start || !bytes.Contains(src[start:end], []byte("sarif-schema-2.1.0.json")) {
		t.Fatal("go-sarif's schema.go no longer holds the SARIF 2.1.0 schema as a raw string")
	}
	return string(src[start+1 : end])
}

// Keep the module (and its schema) in go.mod.
var _ = sarif.FromBytes

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGitHubAnnotationBudget: GitHub shows 10 error annotations a step; they
// go to security findings first, then by rule priority, whatever the file
// order. (Before, all ten went to stray-api-version and none of 25
// plain-text Secrets was annotated.)
func TestGitHubAnnotationBudget(t *testing.T) {
	res := &finding.Report{}
	for i := range 15 {
		res.Findings = append(res.Findings, finding.Finding{Rule: "stray-api-version", Severity: finding.SeverityError,
			File: fmt.Sprintf("a/%02d.yaml", i), Line: 1, Message: "extensions/v1beta1 Ingress was removed in Kubernetes 1.22"})
	}
	for i := range 3 {
		res.Findings = append(res.Findings, finding.Finding{Rule: "plaintext-secret", Severity: finding.SeverityError,
			File: fmt.Sprintf("z/%02d.yaml", i), Line: 2, Message: "Secret s: data key \"k\" is committed in plain text"})
	}
	res.Findings = append(res.Findings, finding.Finding{Rule: "plaintext-secret", Severity: finding.SeverityWarning, File: "z/w.yaml", Message: "a warning"})
	res.Summary = lint.Summary{Errors: 18, Warnings: 1, Targets: 1, Rendered: 1}
	f, _ := output.NewLintFormatter("github")
	var out bytes.Buffer
	if err := f.Write(&out, res, output.LintOptions{Rules: lint.RuleDocs()}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "lint.github-budget.golden"), out.Bytes())
	annotated := out.String()[:strings.Index(out.String(), "::notice")]
	if n := strings.Count(annotated, "::error file=z/"); n != 3 {
		t.Errorf("%d of the 3 plaintext-secret findings annotated", n)
	}
}

// TestStepSummaryLimit: GitHub shows no job summary over 1 MiB; 4,000
// findings with long messages stay under it, the most important first, and
// the summary says how many it left out.
func TestStepSummaryLimit(t *testing.T) {
	res := &finding.Report{}
	long := strings.Repeat("a long message about a field ", 10)
	for i := range 4000 {
		res.Findings = append(res.Findings, finding.Finding{Rule: "schema", Severity: finding.SeverityError, File: fmt.Sprintf("f/%04d.yaml", i), Line: 1, Message: long})
	}
	res.Findings = append(res.Findings, finding.Finding{Rule: "plaintext-secret", Severity: finding.SeverityError, File: "z/secret.yaml", Line: 1, Message: "Secret s: committed in plain text"})
	res.Summary = lint.Summary{Errors: 4001, Targets: 1, Rendered: 1}
	f, _ := output.NewLintFormatter("github")
	var out, summary bytes.Buffer
	if err := f.Write(&out, res, output.LintOptions{Rules: lint.RuleDocs(), StepSummary: &summary}); err != nil {
		t.Fatal(err)
	}
	s := summary.String()
	if summary.Len() >= output.GitHubStepSummaryLimit {
		t.Errorf("summary is %d bytes, GitHub drops it from %d", summary.Len(), output.GitHubStepSummaryLimit)
	}
	shown := strings.Count(s, "| error | `schema`")
	if !strings.Contains(s, fmt.Sprintf("\n%d more findings are not shown", 4000-shown)) || shown == 0 || shown == 4000 {
		t.Errorf("%d schema rows shown; the summary does not say how many were left out:\n%s", shown, s[len(s)-300:])
	}
	if !strings.Contains(s[:2000], "`plaintext-secret`") {
		t.Error("the security finding is not among the first rows")
	}
	golden.Check(t, filepath.Join("testdata", "lint.github-summary-capped.golden"), []byte(s[len(s)-400:]))
}

// TestSARIFLimits: GitHub keeps 25,000 results of a run and takes SARIF
// files up to 10 MB; the SARIF keeps within both (here the size binds
// first), the most important first, validates, and says how many it left
// out.
func TestSARIFLimits(t *testing.T) {
	res := &finding.Report{}
	for i := range output.SARIFMaxResults + 10 {
		res.Findings = append(res.Findings, finding.Finding{Rule: "schema", Severity: finding.SeverityWarning, File: fmt.Sprintf("f/%05d.yaml", i), Line: 1, Message: "m"})
	}
	res.Findings = append(res.Findings, finding.Finding{Rule: "plaintext-secret", Severity: finding.SeverityError, File: "z/secret.yaml", Line: 1, Message: "Secret s: committed in plain text"})
	f, _ := output.NewLintFormatter("sarif")
	var out bytes.Buffer
	if err := f.Write(&out, res, output.LintOptions{Rules: lint.RuleDocs()}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > output.SARIFMaxBytes {
		t.Errorf("SARIF is %d bytes", out.Len())
	}
	var raw struct {
		Runs []struct {
			Invocations []struct {
				Notifications []struct {
					Message struct{ Text string } `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	run := raw.Runs[0]
	if len(run.Results) > output.SARIFMaxResults || len(run.Results) < 10_000 || run.Results[0].RuleID != "plaintext-secret" {
		t.Errorf("%d results, first %s", len(run.Results), run.Results[0].RuleID)
	}
	left := fmt.Sprintf("%d of %d findings were left out", len(res.Findings)-len(run.Results), len(res.Findings))
	if len(run.Invocations) != 1 || !strings.HasPrefix(run.Invocations[0].Notifications[0].Message.Text, left) {
		t.Errorf("the SARIF does not say it is capped: %+v", run.Invocations)
	}
	result, err := gojsonschema.Validate(gojsonschema.NewStringLoader(sarifSchema(t)), gojsonschema.NewBytesLoader(out.Bytes()))
	if err != nil || !result.Valid() {
		t.Fatalf("capped SARIF does not validate: %v %v", err, result.Errors())
	}
	var inv struct {
		Runs []struct {
			Invocations json.RawMessage `json:"invocations"`
		} `json:"runs"`
	}
	json.Unmarshal(out.Bytes(), &inv)
	var pretty bytes.Buffer
	json.Indent(&pretty, inv.Runs[0].Invocations, "", "  ")
	golden.Check(t, filepath.Join("testdata", "lint.sarif-capped-invocations.golden"), pretty.Bytes())
}

// TestFingerprintStable: a finding keeps its fingerprint when its line
// moves, its targets change, or a cluster's Kubernetes version in its
// message changes; it differs for another rule, file or object.
func TestFingerprintStable(t *testing.T) {
	base := finding.Finding{Rule: "stray-api-version", Severity: finding.SeverityWarning, File: "a.yaml", Line: 3, Object: "extensions/v1beta1/Ingress web",
		Targets: []string{"old/app"}, Message: "extensions/v1beta1 Ingress is deprecated since Kubernetes 1.14, to be removed in 1.22 (cluster old runs v1.21.4)"}
	same := base
	same.Line, same.Targets = 9, []string{"old/app", "older/app"}
	same.Message = "extensions/v1beta1 Ingress is deprecated since Kubernetes 1.14, to be removed in 1.22 (cluster old runs v1.21.9)"
	if base.Fingerprint() != same.Fingerprint() {
		t.Error("the fingerprint changed with the line, the targets or the cluster's version")
	}
	keyed := base
	keyed.Key, keyed.Message = "extensions/v1beta1/Ingress", "anything about clusters a, b (v1.21.4)"
	keyed2 := keyed
	keyed2.Message = "anything about clusters a, b, c"
	if keyed.Fingerprint() != keyed2.Fingerprint() {
		t.Error("with a Key, the message does not count")
	}
	for _, other := range []finding.Finding{{Rule: "schema", File: base.File, Object: base.Object, Message: base.Message}, {Rule: base.Rule, File: "b.yaml", Object: base.Object, Message: base.Message}} {
		other.Severity = base.Severity
		if other.Fingerprint() == base.Fingerprint() {
			t.Errorf("%+v has the same fingerprint", other)
		}
	}
}

// TestLintJSONStreamed: the JSON format, which writes the findings one at
// a time, writes the bytes json.Encoder writes for the whole document,
// with findings (escapes, related locations, an archive member) and
// without.
func TestLintJSONStreamed(t *testing.T) {
	type withPrint struct {
		finding.Finding
		Fingerprint string `json:"fingerprint"`
	}
	f, err := output.NewLintFormatter("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*finding.Report{sharedLintResult(), {Findings: []finding.Finding{}}, {}} {
		doc := struct {
			SchemaVersion int             `json:"schemaVersion"`
			Findings      []withPrint     `json:"findings"`
			Summary       finding.Summary `json:"summary"`
		}{SchemaVersion: output.LintJSONVersion, Findings: []withPrint{}, Summary: res.Summary}
		for _, x := range res.Findings {
			doc.Findings = append(doc.Findings, withPrint{x, x.Fingerprint()})
		}
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		if err := f.Write(&got, res, output.LintOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d findings: written\n%s\nwant json.Encoder's\n%s", len(res.Findings), got.Bytes(), want.Bytes())
		}
	}
}
