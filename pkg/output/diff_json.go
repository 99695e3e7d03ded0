package output

import (
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/change"
)

type diffJSON struct{}

func (diffJSON) Name() string { return "json" }

// Write prints the result as JSON with change.JSONVersion as
// schemaVersion; see docs/diff.md.
func (diffJSON) Write(w io.Writer, res *change.Result, _ DiffOptions) error {
	out := struct {
		SchemaVersion int             `json:"schemaVersion"`
		Base          string          `json:"base"`
		Head          string          `json:"head"`
		NotDecrypted  bool            `json:"notDecrypted,omitempty"`
		Targets       []change.Target `json:"targets"`
		Changes       []change.Change `json:"changes"`
		ArgoCD        []change.Change `json:"argocd"`
		Warnings      []string        `json:"warnings,omitempty"`
		Errors        []string        `json:"errors,omitempty"`
		Hidden        []change.Hidden `json:"hidden,omitempty"`
	}{change.JSONVersion, res.Base, res.Head, res.NotDecrypted, res.Targets, res.Changes, res.ArgoCD, res.Warnings, res.Errors, res.Hidden}
	if out.Targets == nil {
		out.Targets = []change.Target{}
	}
	if out.Changes == nil {
		out.Changes = []change.Change{}
	}
	if out.ArgoCD == nil {
		out.ArgoCD = []change.Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
