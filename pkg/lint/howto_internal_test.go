package lint

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// The rule ARCHITECTURE.md's "How to add a lint rule" shows, as it shows
// it (TestHowToAddARule holds the two alike).

// howto begins
var ruleSingleReplica = &Rule{
	Rule: finding.Rule{
		ID:          "single-replica",
		Summary:     "A Deployment runs one replica.",
		Remediation: "Set spec.replicas to 2 or more in the chart's values.",
		Severity:    SeverityWarning,
		Description: "One replica is down for every rollout and node drain.",
		Bad:         Example{File: "namespaces/shop/templates/web.yaml", Content: "spec:\n  replicas: 1\n"},
		Good:        Example{File: "namespaces/shop/templates/web.yaml", Content: "spec:\n  replicas: 3\n"},
	},
	check: func(in *input, report func(Finding)) { checkSingleReplica(in.results, in.at, report) },
}

func checkSingleReplica(results []*render.Result, at *positions, report func(Finding)) {
	for _, res := range results {
		for i := range res.Objects {
			o := &res.Objects[i]
			if isKind(o, "apps", "Deployment") && fmt.Sprint(mapAt(contentOf(o), "spec")["replicas"]) == "1" {
				report(Finding{File: o.Source.String(), Line: at.objectLine(o, "replicas:"),
					Object: o.ID(), Targets: []string{res.Target.Name()}, Message: "the Deployment runs one replica"})
			}
		}
	}
}

// howto ends

// TestHowToAddARule: the documented rule compiles, finds a one-replica
// Deployment and nothing else, and is the code ARCHITECTURE.md shows, in
// under 30 lines.
func TestHowToAddARule(t *testing.T) {
	objs, err := manifest.Read([]byte("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: one\nspec:\n  replicas: 1\n" +
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: three\nspec:\n  replicas: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := &render.Result{Objects: objs}
	in := &input{results: []*render.Result{res}, at: &positions{}}
	var found []Finding
	ruleSingleReplica.check(in, func(f Finding) { found = append(found, f) })
	if len(found) != 1 || !strings.HasSuffix(found[0].Object, "Deployment one") {
		t.Errorf("found %+v, want the one-replica Deployment", found)
	}
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile("(?s)## How to add a lint rule.*?```go\n(.*?)```").FindSubmatch(doc)
	self, err := os.ReadFile("howto_internal_test.go")
	if err != nil {
		t.Fatal(err)
	}
	here := regexp.MustCompile("(?s)// howto begins\n(.*?)// howto ends").FindSubmatch(self)
	switch {
	case shown == nil || here == nil:
		t.Fatal("ARCHITECTURE.md's example or this file's copy of it is missing")
	case string(shown[1]) != string(here[1]):
		t.Errorf("ARCHITECTURE.md shows another rule than the one tested here:\n%s", shown[1])
	case strings.Count(string(shown[1]), "\n") >= 30:
		t.Errorf("the example takes %d lines, 30 or more", strings.Count(string(shown[1]), "\n"))
	}
}
