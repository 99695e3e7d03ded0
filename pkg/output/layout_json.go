package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/layout"
)

// layoutJSON writes the inventory as indented JSON: the layout.Repo model
// with its json tags (clusters, namespaces, targets, diagnostics), its
// targets (most of it: 14 MB at 20,000 targets) written one at a time
// (writeListed).
type layoutJSON struct{}

func (layoutJSON) Name() string { return "json" }

func (layoutJSON) Write(w io.Writer, repo *layout.Repo) error {
	if len(repo.Targets) == 0 { // none, or null
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(repo)
	}
	shell := *repo
	shell.Targets = []layout.Target{}
	return writeListed(w, &shell, "targets", len(repo.Targets), func(i int) any { return &repo.Targets[i] })
}
