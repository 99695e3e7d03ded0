package lint

import (
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Options configure Lint.
type Options struct {
	// Render configures how targets are rendered (Kubernetes version
	// override, dependency cache, offline, concurrency).
	Render render.Options
	// SchemaDir keeps the JSON schemas the schema rule used, in
	// kubeconform's layout (crd/<group>/<kind>_<version>.json and
	// builtin/v1.<minor>/<kind>-<group>-<version>.json), for other tools.
	// Empty: a temporary folder, removed after the run.
	SchemaDir string
	// Cluster, and Namespace with it, scope the run to those targets: only
	// they are rendered, and only findings about them, or about files in
	// their folders, are kept. Checks across targets then see only these
	// (a CRD short name shared with a target outside the scope is not
	// found). Empty: every target.
	Cluster, Namespace string
	// Shard lints one part of the clusters (layout.Shard.ClusterTargets),
	// for spreading a large repository over CI jobs: findings about the
	// shard's targets, and, in the first shard only, those about no
	// target. Every check across a cluster's targets sees the whole
	// cluster, and the CRD inventory is the whole repository's (the other
	// shards' targets whose charts may render a CRD are rendered for their
	// CRDs alone). values-unused, which looks across clusters, is decided
	// when the shards' reports are merged (Result.ShardReport, Merge).
	Shard layout.Shard
	// HeldTargets bounds how many targets' renderings a run holds whole
	// at once (0: DefaultHeldTargets; negative: no bound). A run over more
	// targets than that (every target, or Targets; not a shard or one
	// cluster), in more than one cluster, is checked a cluster at a time,
	// with the same findings: the others' renderings are held compressed
	// (bycluster.go), for some more time.
	HeldTargets int
	// CRDInventory, in a sharded run, is the repository's CRDs rendered
	// once (Inventory), used instead of rendering the other shards'
	// candidates.
	CRDInventory *CRDInventory
	// Targets, when not nil, limits the run to the named targets
	// ("cluster/namespace"; other names are ignored): only they are
	// rendered and reported on, with the repository-wide findings; an
	// empty, non-nil list renders nothing.
	Targets []string
	// Keys is the operator's key policy, which the decrypter passed to
	// Lint holds too: sops-key-not-allowed names the keys of encrypted
	// files that it does not allow (they are never contacted).
	Keys sopsfile.KeyPolicy
	// CELBudget is the CEL cost a run may spend on each lint.checks
	// expression, and on each cluster's admission policies (0:
	// admission.RunBudget). The expressions come from the repository: a
	// check or policy that spends it is an error finding, not a long run.
	CELBudget int64
}

// DefaultOptions returns the default settings.
func DefaultOptions() Options { return Options{Render: render.DefaultOptions()} }

// RenderOptions are the render options Lint renders with, for callers that
// render themselves and pass the renderings to Check. Unencrypted secret
// files are plaintext-secret's to report; the rest of such a target is
// still checked. A secret file that cannot be decrypted is reported, and
// its target checked with placeholders for that file's values: one defect
// must not hide the others.
func RenderOptions() []render.Option {
	return []render.Option{render.AllowLayoutErrors(layout.CodeSecretNotEncrypted), render.PlaceholdersOnDecryptFailure()}
}

// ScopeError is an Options.Cluster or Namespace that selects nothing.
type ScopeError struct{ msg string }

func (e *ScopeError) Error() string { return e.msg }
