package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/lint"
)

// lintJSON writes {"findings": [...], "summary": {...}}: the lint.Result
// with its json tags, indented.
type lintJSON struct{}

func (lintJSON) Name() string { return "json" }

func (lintJSON) Write(w io.Writer, res *lint.Result, _ LintOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
