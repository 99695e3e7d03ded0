package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/change"
)

// compareJSON writes the change.Comparison as indented JSON (a secret
// value's side has no value, only secret: true and its origin).
type compareJSON struct{}

func (compareJSON) Name() string { return "json" }

func (compareJSON) Write(w io.Writer, c *change.Comparison, _ DiffOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}
