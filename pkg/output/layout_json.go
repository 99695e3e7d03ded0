package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/layout"
)

// layoutJSON writes the inventory as indented JSON: the layout.Repo model
// with its json tags (clusters, namespaces, targets, diagnostics).
type layoutJSON struct{}

func (layoutJSON) Name() string { return "json" }

func (layoutJSON) Write(w io.Writer, repo *layout.Repo) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(repo)
}
