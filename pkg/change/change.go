// Package change is the model of a comparison of two revisions: the
// targets a change affects and the objects that differ, as pkg/diff makes
// it and pkg/output prints it. It is a leaf: it links neither Helm nor
// SOPS.
//
// Inside: the model of a comparison (`Result`, `Target`, `Change`), a leaf
// that pkg/output formats (`text`, coloured or not; `json`; `markdown`, split
// by `MarkdownParts` into parts of at most 65,536 characters between objects,
// cutting an object diff longer than a part with a notice). The Action posts
// the parts with `scripts/diff-comment.sh`, idempotently, by the marker each
// part starts with.
package change

import (
	"fmt"
	"slices"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/values"
)

// JSONVersion is the version of the JSON form of a Result (repotool diff
// -o json); it changes only when a field changes meaning or goes away.
const JSONVersion = 1

// Target is a target the change affects.
type Target struct {
	// Name is "cluster/namespace".
	Name string `json:"name"`
	// Files are the changed files that affect it, sorted.
	Files []string `json:"files"`
	// Added and Removed say the target exists only at head, or only at
	// base.
	Added   bool `json:"added,omitempty"`
	Removed bool `json:"removed,omitempty"`
}

// Change is one object that differs.
type Change struct {
	// Target is the target that renders it.
	Target string `json:"target"`
	// Key identifies the object; Object is "apiVersion/Kind namespace/name"
	// at head (at base for a removed one).
	Key    manifest.Key `json:"-"`
	Object string       `json:"object"`
	// Action is "added", "removed" or "changed".
	Action string `json:"action"`
	// APIVersion is "old -> new" when the object's apiVersion changed.
	APIVersion string `json:"apiVersion,omitempty"`
	// Diff is a unified diff of the redacted object (secret values are
	// placeholders), "" when only secret values changed.
	Diff string `json:"diff,omitempty"`
	// SecretFields are the fields (JSON pointers) whose secret value
	// changed; the values themselves are never shown.
	SecretFields []string `json:"secretFields,omitempty"`
	// Cause is why the object differs, when it is known (repotool compare
	// --helm v3,v4 names the Helm 4 differences).
	Cause string `json:"cause,omitempty"`
	// Provenance says which values made the changed fields, sorted by
	// field: the same origins `repotool values --origin` shows.
	Provenance []Provenance `json:"provenance,omitempty"`
	// Admission says what the cluster's mutating admission policies did
	// to the object (diff --as-admitted): one line per policy and
	// binding, "head: MutatingAdmissionPolicy P (binding B): /field, ...",
	// and "base: ..." for what they did at base when it differs.
	Admission []string `json:"admission,omitempty"`
}

// Provenance is where a changed field's new value comes from: the values
// key whose change made it, with the file and line that set it at head
// and, when that moved, at base. For a changed secret value, Key is ""
// and Head the secret values file that changed: which of its keys changed
// is not told (SOPS encrypts each value anew).
type Provenance struct {
	// Field is the field's JSON pointer in the object.
	Field string `json:"field"`
	// Key is the values path, its keys joined with ".".
	Key  string         `json:"key,omitempty"`
	Head *values.Source `json:"head,omitempty"`
	Base *values.Source `json:"base,omitempty"`
}

// Result is a comparison.
type Result struct {
	Base, Head string `json:"-"`
	// BaseSide names the base side where a field's origin at base is
	// shown: "base" when empty; the base cluster, for repotool compare.
	BaseSide string `json:"-"`
	// NotDecrypted says secret values files were not decrypted (repotool
	// diff --no-decrypt): their values are placeholders at both
	// revisions, so a changed secret value cannot be seen.
	NotDecrypted bool     `json:"notDecrypted,omitempty"`
	Targets      []Target `json:"targets"`
	Changes      []Change `json:"changes"`
	// ArgoCD are the generated Argo CD objects that differ (what
	// `repotool generate` would write): Target is the cluster, Object the
	// file's path in the output folder.
	ArgoCD []Change `json:"argocd"`
	// Warnings say what a change will do beyond the objects shown: an
	// Application removed with automated prune deletes what it deployed.
	Warnings []string `json:"warnings,omitempty"`
	// Errors are the targets that could not be rendered at one revision,
	// with why (never quoting a secret).
	Errors []string `json:"errors,omitempty"`
	// Hidden are the changed objects not shown because every field that
	// changed is ignored (diff.ignore, webhook caBundles, checksum/
	// annotations, fields regenerated on every render): counted, never
	// silently dropped; diff --no-ignore shows them.
	Hidden []Hidden `json:"hidden,omitempty"`
}

// Hidden is a changed object diff does not show, and why.
type Hidden struct {
	Target string `json:"target"`
	Object string `json:"object"`
	Reason string `json:"reason"`
}

// Changed reports whether any object, rendered or generated, differs.
func (r *Result) Changed() bool { return len(r.Changes) > 0 || len(r.ArgoCD) > 0 }

// Deletions are what the change deletes wholesale, sorted: each generated
// Application or AppProject it removes ("Application shop (cluster
// prod)"), and each target it removes with what that target deployed
// ("every object of prod/shop (12 objects)"). repotool diff
// --fail-on-delete fails on them.
func (r *Result) Deletions() []string {
	var out []string
	for _, c := range r.ArgoCD {
		if c.Action == "removed" && (c.Key.Kind == "Application" || c.Key.Kind == "AppProject") {
			out = append(out, fmt.Sprintf("%s %s (cluster %s)", c.Key.Kind, c.Key.Name, c.Target))
		}
	}
	removed := map[string]int{}
	for _, c := range r.Changes {
		if c.Action == "removed" {
			removed[c.Target]++
		}
	}
	for _, t := range r.Targets {
		if t.Removed && removed[t.Name] > 0 {
			out = append(out, fmt.Sprintf("every object of %s (%d objects)", t.Name, removed[t.Name]))
		}
	}
	slices.Sort(out)
	return out
}
