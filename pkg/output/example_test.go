package output_test

import (
	"fmt"
	"os"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/output"
)

// Format a report of findings, from lint or any other producer, in one of
// the lint formats. Rules carries the rules' documentation (lint.RuleDocs() for
// lint's findings); here, one rule of the program's own.
func ExampleNewLintFormatter() {
	report := &finding.Report{Findings: []finding.Finding{{
		Rule: "image-tag", Severity: finding.SeverityWarning,
		File: "namespaces/shop/templates/deployment.yaml", Line: 12,
		Object: "apps/v1/Deployment shop/web", Message: "Deployment shop/web: the image has no tag",
	}}, Summary: finding.Summary{Targets: 1, Rendered: 1}}
	report.Finish()
	f, err := output.NewLintFormatter("text")
	if err != nil {
		fmt.Println(err)
		return
	}
	rules := []finding.Rule{{ID: "image-tag", Severity: finding.SeverityWarning, Remediation: "Pin the image to a tag or digest.", HelpURI: "https://example.com/rules#image-tag"}}
	if err := f.Write(os.Stdout, report, output.LintOptions{Rules: rules}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// namespaces/shop/templates/deployment.yaml:12: warning [image-tag] Deployment shop/web: the image has no tag
	//     object: apps/v1/Deployment shop/web
	//
	// How to fix:
	//   [image-tag] Pin the image to a tag or digest. See https://example.com/rules#image-tag
	//
	// 0 errors, 1 warning, 0 infos in 1 target (1 rendered)
}
