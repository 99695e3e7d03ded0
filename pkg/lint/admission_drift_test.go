package lint_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/lint"
)

// TestAdmissionDrift: the drift case's findings go away when the
// Applications compare server-side, or when ignoreDifferences covers the
// fields, and the admission-policy rule's stay.
func TestAdmissionDrift(t *testing.T) {
	useTestKey(t)
	count := func(res *lint.Result) (drift, policy int) {
		for _, f := range res.Findings {
			switch f.Rule {
			case "admission-drift":
				drift++
			case "admission-policy":
				policy++
			}
		}
		return drift, policy
	}
	for _, tc := range []struct {
		name   string
		change func(*config.Config)
		drift  int
	}{
		{"as configured", func(*config.Config) {}, 3},
		{"server-side diff", func(c *config.Config) { c.ArgoCD.ServerSideDiff = true }, 0},
		{"ignored by pointer", func(c *config.Config) {
			ns := c.Namespaces["shop"]
			ns.IgnoreDifferences = append(ns.IgnoreDifferences,
				config.IgnoreDifference{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/template/spec/containers/0/image", "/spec/replicas"}},
				config.IgnoreDifference{Group: "example.com", Kind: "Widget", Name: "shop", JQPathExpressions: []string{`.spec["tags"]`}})
			c.Namespaces["shop"] = ns
		}, 0},
		{"ignored for another object", func(c *config.Config) {
			ns := c.Namespaces["shop"]
			ns.IgnoreDifferences = append(ns.IgnoreDifferences,
				config.IgnoreDifference{Group: "apps", Kind: "Deployment", Name: "other", JSONPointers: []string{"/spec"}},
				config.IgnoreDifference{Group: "example.com", Kind: "Widget", JQPathExpressions: []string{`.spec.tags | select(. == "x")`}})
			c.Namespaces["shop"] = ns
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, opts := loadCase(t, filepath.Join(casesDir, "admission-drift", "repo"))
			tc.change(&repo.Config)
			res, err := lint.Lint(context.Background(), repo, opts)
			if err != nil {
				t.Fatal(err)
			}
			drift, policy := count(res)
			if drift != tc.drift || policy != 6 {
				t.Errorf("%d admission-drift and %d admission-policy findings, want %d and 6: %+v", drift, policy, tc.drift, res.Findings)
			}
		})
	}
}
