package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/repotool/repotool/pkg/finding"
)

// SARIFSchema is the schema URI written into SARIF output.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// lintSARIF writes SARIF 2.1.0 for GitHub code scanning: every rule's
// metadata, and per finding the rule, level, message, location (artifact
// relative to the repository root, region) and a fingerprint that does not
// change when lines move. Valid with zero results.
type lintSARIF struct{}

func (lintSARIF) Name() string { return "sarif" }

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
	ColumnKind  string            `json:"columnKind"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

// GitHub code scanning's limits on one SARIF run: results beyond them are
// dropped, or the upload refused. repotool keeps within them, in the order
// of importance the annotations use, and says what it left out.
const (
	SARIFMaxResults = 25_000
	SARIFMaxBytes   = 10 << 20
)

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	HelpURI              string          `json:"helpUri"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           map[string]any  `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
	// Enabled is false for a rule that is off by default.
	Enabled *bool `json:"enabled,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	}
	return "note"
}

func (lintSARIF) Write(w io.Writer, res *finding.Report, opts LintOptions) error {
	driver, index := sarifDriverOf(rulesOf(opts, res), opts.ToolVersion)
	results := []sarifResult{}
	size, dropped := 0, 0
	for _, f := range byImportance(res.Findings) {
		r := sarifResultOf(f, index[f.Rule], opts)
		// Its size as written: indented three levels deep, and a comma.
		b, err := json.MarshalIndent(r, "      ", "  ")
		if err != nil {
			return err
		}
		// The rules take well under 1 MB; the rest is for results.
		if len(results) >= SARIFMaxResults || size+len(b) > SARIFMaxBytes-(1<<20) {
			dropped++
			continue
		}
		size += len(b) + 8
		results = append(results, r)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: results, ColumnKind: "unicodeCodePoints"}
	if dropped > 0 {
		run.Invocations = []sarifInvocation{{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{{
			Level: "warning",
			Message: sarifText{Text: fmt.Sprintf("%d of %d findings were left out to keep within GitHub's limits "+
				"(%d results, %d MB a run): the most important are kept; run repotool lint for all of them",
				dropped, len(res.Findings), SARIFMaxResults, SARIFMaxBytes>>20)},
		}}}}
	}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifDriverOf describes repotool and its rules, and gives each rule's
// index among them.
func sarifDriverOf(rules []finding.Rule, version string) (sarifDriver, map[string]int) {
	index := map[string]int{}
	driver := sarifDriver{Name: "repotool", InformationURI: "https://github.com/repotool/repotool", Version: version, Rules: []sarifRule{}}
	for i, r := range rules {
		index[r.ID] = i
		sr := sarifRule{
			ID:                   r.ID,
			Name:                 camel(r.ID),
			ShortDescription:     sarifText{Text: r.Summary},
			FullDescription:      sarifText{Text: r.Description},
			Help:                 sarifText{Text: r.Remediation, Markdown: r.Remediation + "\n\nSee [" + r.ID + "](" + r.DocURI() + ")."},
			HelpURI:              r.DocURI(),
			DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(r.Severity)},
		}
		if r.Off {
			off := false
			sr.DefaultConfiguration.Enabled = &off
		}
		if r.ID == "plaintext-secret" {
			sr.Properties = map[string]any{"tags": []string{"security"}, "security-severity": "8.0"}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	return driver, index
}

// sarifResultOf is one finding as a SARIF result.
func sarifResultOf(f finding.Finding, ruleIndex int, opts LintOptions) sarifResult {
	r := sarifResult{
		RuleID:              f.Rule,
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(f.Severity),
		Message:             sarifText{Text: sarifMessage(f)},
		PartialFingerprints: map[string]string{"repotool/v2": f.Fingerprint()},
	}
	if f.File != "" {
		// GitHub requires a start line; a finding about a whole file
		// is shown on its first line.
		region := &sarifRegion{StartLine: max(f.Line, 1), StartColumn: f.Column}
		r.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: opts.gitPath(f.File), URIBaseID: "%SRCROOT%"},
			Region:           region,
		}}}
	}
	for i, l := range f.Related {
		if l.File == "" {
			continue
		}
		msg := l.Message
		if l.Target != "" {
			msg += " (" + l.Target + ")"
		}
		r.RelatedLocations = append(r.RelatedLocations, sarifLocation{ID: i + 1,
			PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: opts.gitPath(l.File), URIBaseID: "%SRCROOT%"},
				Region:           &sarifRegion{StartLine: max(l.Line, 1)},
			},
			Message: &sarifText{Text: strings.TrimSpace(msg)}})
	}
	if len(f.Targets) > 0 {
		r.Properties = map[string]any{"targets": f.Targets}
	}
	return r
}

func sarifMessage(f finding.Finding) string {
	m := f.Message
	if f.Object != "" {
		m += " (object " + f.Object + ")"
	}
	if len(f.Targets) > 0 {
		m += " [targets: " + strings.Join(f.Targets, ", ") + "]"
	}
	return m
}

// camel turns "plaintext-secret" into "PlaintextSecret".
func camel(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '-' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
