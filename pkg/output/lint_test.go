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

	"github.com/repotool/repotool/internal/golden"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/output"
)

// sharedLintResult is the one input every lint format's golden is made
// from: each severity, a finding without a line, one inside an archive,
// targets, text that needs escaping, and more errors than GitHub shows.
func sharedLintResult() *lint.Result {
	res := &lint.Result{Findings: []lint.Finding{
		{Rule: "plaintext-secret", Severity: lint.SeverityError, File: "clusters/prod/shop/prod-values.yaml", Line: 4, Column: 15,
			Object: "v1/Secret shop/db", Template: "namespaces/shop/templates/secret.yaml", Targets: []string{"prod/shop"},
			Message: `Secret shop/db: stringData key "PASSWORD" is rendered from a plain-text value, not from a .secret.yaml file`},
		{Rule: "stray-api-version", Severity: lint.SeverityWarning, File: "namespaces/shop/templates/ingress.yaml", Line: 1,
			Object: "extensions/v1beta1/Ingress shop/web", Targets: []string{"dev/shop", "old/shop"},
			Message: "extensions/v1beta1 Ingress is deprecated since Kubernetes 1.14, to be removed in 1.22 (cluster old runs v1.21.4): use networking.k8s.io/v1"},
		{Rule: "layout", Severity: lint.SeverityWarning, File: "namespaces/legacy/Chart.yaml",
			Message: "namespace \"legacy\" has a chart but no cluster deploys it [namespace-unused]; 100% sure, with a | pipe\nand a newline"},
		{Rule: "stray-api-version", Severity: lint.SeverityInfo, File: "namespaces/shop/charts/redis-7.2.4.tgz!redis/templates/pdb.yaml",
			Message: "informational finding inside a vendored chart"},
	}, Summary: lint.Summary{Suppressed: 2, Targets: 3, Rendered: 3}}
	for i := range 11 {
		res.Findings = append(res.Findings, lint.Finding{Rule: "render", Severity: lint.SeverityError,
			File: fmt.Sprintf("namespaces/app%02d/Chart.yaml", i), Targets: []string{fmt.Sprintf("prod/app%02d", i)},
			Message: fmt.Sprintf("render prod/app%02d: chart namespaces/app%02d: dependency %q missing", i, i, "common")})
	}
	res.Summary.Errors, res.Summary.Warnings, res.Summary.Infos = 12, 2, 1
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
			if err := f.Write(&out, sharedLintResult(), output.LintOptions{ToolVersion: "v0.0.0-test", StepSummary: &summary}); err != nil {
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
	for _, res := range []*lint.Result{sharedLintResult(), {Findings: []lint.Finding{}}} {
		f, _ := output.NewLintFormatter("sarif")
		var out bytes.Buffer
		if err := f.Write(&out, res, output.LintOptions{}); err != nil {
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
	if err := f.Write(&out, sharedLintResult(), output.LintOptions{}); err != nil {
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
