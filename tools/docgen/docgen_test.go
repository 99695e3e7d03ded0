package docgen

import (
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
)

// TestRulesDoc fails when docs/rules.md is stale.
func TestRulesDoc(t *testing.T) {
	golden.Check(t, "../../docs/rules.md", RulesMarkdown())
}
