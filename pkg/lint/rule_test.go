package lint_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/lint"
)

// TestRegistry keeps the rule registry sound: IDs unique, sorted and
// kebab-case, every rule documented, with a testdata case and a docs entry.
func TestRegistry(t *testing.T) {
	rules := lint.Rules()
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	if !slices.IsSorted(ids) {
		t.Errorf("rules are not sorted by ID: %v", ids)
	}
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("duplicate rule IDs: %v", ids)
	}
	docs, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, r := range rules {
		switch {
		case !kebab.MatchString(r.ID):
			t.Errorf("%s: ID is not kebab-case", r.ID)
		case r.Summary == "" || strings.Contains(r.Summary, "\n"):
			t.Errorf("%s: summary must be one line", r.ID)
		case !strings.HasSuffix(r.Remediation, "."):
			t.Errorf("%s: remediation must be a sentence ending in a period", r.ID)
		case r.Description == "" || r.Bad.Content == "" || r.Good.Content == "":
			t.Errorf("%s: description and bad/good examples are required for docs/rules.md", r.ID)
		}
		if _, err := lint.ParseSeverity(string(r.Severity)); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if _, err := os.Stat(filepath.Join(casesDir, r.ID, "findings.json")); err != nil {
			t.Errorf("%s: no testdata/lint/%s case: %v", r.ID, r.ID, err)
		}
		if !strings.Contains(string(docs), "## "+r.ID+"\n") {
			t.Errorf("%s: no entry in docs/rules.md (run go test ./tools/docgen -update)", r.ID)
		}
		if got, ok := lint.RuleByID(r.ID); !ok || got.ID != r.ID {
			t.Errorf("RuleByID(%s) failed", r.ID)
		}
	}
	if _, ok := lint.RuleByID("nope"); ok {
		t.Error("RuleByID found an unknown rule")
	}
}
