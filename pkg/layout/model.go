package layout

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
)

// Scope says which clusters a values file applies to. It prints, and
// encodes as JSON, as its name ("common"); it is a byte so that a
// repository's tens of thousands of values files each take 24 bytes, not
// 40.
type Scope uint8

const (
	_ Scope = iota // none: a ValueFile's zero value
	// ScopeCommon values live in the namespace folder and apply to every cluster.
	ScopeCommon
	// ScopeCluster values live in clusters/<cluster>/<namespace>/ (or are
	// listed for the target with {cluster} in their path).
	ScopeCluster
	// ScopeClusterWide values live directly in clusters/<cluster>/ and
	// apply to every target of that cluster.
	ScopeClusterWide
)

var scopeNames = [...]string{ScopeCommon: "common", ScopeCluster: "cluster", ScopeClusterWide: "cluster-wide"}

// String is s's name: common, cluster or cluster-wide ("" for none).
func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// MarshalText is s's name.
func (s Scope) MarshalText() ([]byte, error) {
	if int(s) >= len(scopeNames) {
		return nil, fmt.Errorf("layout: no scope %d", uint8(s))
	}
	return []byte(scopeNames[s]), nil
}

// UnmarshalText reads a scope's name.
func (s *Scope) UnmarshalText(b []byte) error {
	i := slices.Index(scopeNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("layout: no scope %q (common, cluster or cluster-wide)", b)
	}
	*s = Scope(i)
	return nil
}

// ValueFile is one values file of a target.
type ValueFile struct {
	// Path is slash-separated and relative to the repository root.
	Path string `json:"path"`
	// Scope is common or cluster.
	Scope Scope `json:"scope"`
	// Secret is true for SOPS-encrypted files (by their suffix).
	Secret bool `json:"secret"`
}

// Chart is a namespace's Helm chart, as declared by its Chart.yaml.
type Chart struct {
	// Dir is the chart folder, relative to the repository root.
	Dir string `json:"dir"`
	// Name and Version come from Chart.yaml.
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Namespace is one folder under namespaces/.
type Namespace struct {
	Name string      `json:"name"`
	Dir  string      `json:"dir"`
	Tier config.Tier `json:"tier"`
	// Chart is nil when the folder has no (valid) Chart.yaml.
	Chart *Chart `json:"chart,omitempty"`
	// Values are the common values files, plain ones first, each class in
	// lexical order.
	Values []ValueFile `json:"values"`
	// Clusters that deploy this namespace, sorted.
	Clusters []string `json:"clusters"`
}

// Cluster is one folder under clusters/.
type Cluster struct {
	Name        string             `json:"name"`
	Dir         string             `json:"dir"`
	KubeVersion string             `json:"kubeVersion"`
	APIVersions []string           `json:"apiVersions,omitempty"`
	Destination config.Destination `json:"destination"`
	// Namespaces deployed to this cluster (targets), sorted.
	Namespaces []string `json:"namespaces"`
	// FromApps is true for a cluster that only Applications
	// (applications.paths) name: it has no folder, and generate writes
	// nothing for it.
	FromApps bool `json:"fromApps,omitempty"`
	// Values are the values files directly in the cluster folder, which
	// every target of the cluster reads (after the common ones), plain
	// ones first, each class in lexical order.
	Values []ValueFile `json:"values,omitempty"`
}

// Target is one (cluster, namespace) pair: what one Argo CD application
// deploys. It exists when clusters/<cluster>/<namespace>/ exists and
// namespaces/<namespace>/ has a chart.
type Target struct {
	Cluster   string      `json:"cluster"`
	Namespace string      `json:"namespace"`
	Tier      config.Tier `json:"tier"`
	// Dir is clusters/<cluster>/<namespace>, or the cluster's folder when
	// the target has none (Declared).
	Dir string `json:"dir"`
	// Declared is true for a target repotool.yaml declares by listing its
	// values (clusters.<cluster>.values.<namespace>) that has no folder.
	Declared bool `json:"declared,omitempty"`
	// ChartDir is the folder of its chart: namespaces/<namespace>, or the
	// chart repotool.yaml names (namespaces.<namespace>.chart).
	ChartDir string `json:"chartDir"`
	// NamespaceDir is namespaces/<namespace>, where its common values are,
	// when that is not ChartDir (a shared chart); "" otherwise.
	NamespaceDir string   `json:"namespaceDir,omitempty"`
	KubeVersion  string   `json:"kubeVersion"`
	APIVersions  []string `json:"apiVersions,omitempty"`
	// Values in merge order, later wins: common plain, common secret,
	// cluster-wide plain and secret, cluster plain, cluster secret; each
	// class in lexical order. Or, when repotool.yaml lists them, in its
	// order.
	Values []ValueFile `json:"values"`
	// App is the Argo CD Application the target comes from
	// (applications.paths); nil for a target of the folders.
	App *App `json:"app,omitempty"`
	// Errors are the layout's error diagnostics about the target's own
	// files (cluster and namespace folders, values files): every command
	// fails such a target, never leaves it out.
	Errors []Diagnostic `json:"errors,omitempty"`
}

// Name returns "cluster/short" (Short).
func (t *Target) Name() string { return t.Cluster + "/" + t.Short() }

// ReleaseName is the Helm release name t renders as: its Application's
// (helm.releaseName, else its name), or its namespace.
func (t *Target) ReleaseName() string {
	if t.App != nil {
		return t.App.ReleaseName
	}
	return t.Namespace
}

// Short is the target's name in its cluster: its Application's name, or
// its namespace. Targets of a cluster have different short names.
func (t *Target) Short() string {
	if t.App != nil {
		return t.App.Name
	}
	return t.Namespace
}

// Folders are the target's folders: its own (none when Declared), its
// chart's, and its namespace's when that is not its chart's.
func (t *Target) Folders() []string {
	var out []string
	if !t.Declared {
		out = append(out, t.Dir)
	}
	out = append(out, t.ChartDir)
	if t.NamespaceDir != "" {
		out = append(out, t.NamespaceDir)
	}
	return out
}

// Repo is a loaded repository.
type Repo struct {
	// FS is the file system the repository was loaded from.
	FS fs.FS `json:"-"`
	// Root is the repository's folder on disk when it was loaded with
	// LoadDir, "" otherwise. Settings that name folders (schema locations)
	// are relative to it.
	Root string `json:"-"`
	// Config is repotool.yaml merged over DefaultConfig.
	Config config.Config `json:"-"`
	// ConfigFile is the configuration file's path, "" when there is none.
	ConfigFile string `json:"configFile,omitempty"`
	// Clusters, Namespaces and Targets are sorted by name
	// (targets by cluster, then namespace).
	Clusters    []Cluster    `json:"clusters"`
	Namespaces  []Namespace  `json:"namespaces"`
	Targets     []Target     `json:"targets"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Files is the repository's file index, shared by every stage: each
	// file is read, and parsed, at most once.
	Files *Files `json:"-"`

	inputs *inputCache // what Inputs learnt of each chart folder
	helm   string      // Options.Helm, resolved at load (Helm)
}

// Helm is the Helm the repository was loaded for, "v3" or "v4": Options.Helm
// when given, else repotool.yaml's render.helm, else v3. Its values files
// were checked as that Helm reads them, and renderings of it render as
// that Helm unless render.Options.Helm names the other (compare --helm).
// The one place a run's Helm is resolved.
func (r *Repo) Helm() string {
	return cmp.Or(r.helm, r.Config.Render.Helm, config.HelmV3)
}

// TargetsOf are cluster's targets, by namespace: a part of Targets (which
// is sorted by cluster), not a copy. Empty for a cluster with none.
func (r *Repo) TargetsOf(cluster string) []Target {
	lo, _ := slices.BinarySearchFunc(r.Targets, cluster, func(t Target, c string) int { return cmp.Compare(t.Cluster, c) })
	hi := lo
	for hi < len(r.Targets) && r.Targets[hi].Cluster == cluster {
		hi++
	}
	return r.Targets[lo:hi:hi]
}

// Target returns the target of cluster whose short name (Target.Short) is
// namespace: its namespace, or its Application's name.
func (r *Repo) Target(cluster, namespace string) (*Target, bool) {
	i, ok := slices.BinarySearchFunc(r.Targets, [2]string{cluster, namespace}, func(t Target, k [2]string) int {
		if c := strings.Compare(t.Cluster, k[0]); c != 0 {
			return c
		}
		return strings.Compare(t.Short(), k[1])
	})
	if !ok {
		return nil, false
	}
	return &r.Targets[i], true
}

// Namespace returns the namespace named name.
func (r *Repo) Namespace(name string) (*Namespace, bool) {
	i, ok := slices.BinarySearchFunc(r.Namespaces, name, func(n Namespace, k string) int { return strings.Compare(n.Name, k) })
	if !ok {
		return nil, false
	}
	return &r.Namespaces[i], true
}

// Cluster returns the cluster named name.
func (r *Repo) Cluster(name string) (*Cluster, bool) {
	i, ok := slices.BinarySearchFunc(r.Clusters, name, func(c Cluster, k string) int { return strings.Compare(c.Name, k) })
	if !ok {
		return nil, false
	}
	return &r.Clusters[i], true
}

// ClusterOf returns the cluster whose folder, or whose target's folder,
// holds the repository path p: a change there is that cluster's alone.
func (r *Repo) ClusterOf(p string) (string, bool) {
	for _, c := range r.Clusters {
		if c.Dir != "" && strings.HasPrefix(p, c.Dir+"/") {
			return c.Name, true
		}
	}
	for _, t := range r.Targets {
		if !t.Declared && strings.HasPrefix(p, t.Dir+"/") {
			return t.Cluster, true
		}
	}
	return "", false
}

// Folders are the folders the layout reads targets and namespaces from:
// the namespaces and clusters folders, or the folders layout.targets
// names (its leading folder; when it begins with a part, every target's
// and namespace's folder), sorted.
func (r *Repo) Folders() []string {
	lc := r.Config.Layout
	out := []string{lc.NamespacesDir}
	if tpl := lc.TargetTemplate(); leadingFolders(tpl) > 0 {
		out = append(out, strings.Join(tpl.Segments[:leadingFolders(tpl)], "/"))
	} else {
		for _, t := range r.Targets {
			out = append(out, t.Folders()...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// leadingFolders is how many of the template's first segments are folder
// names.
func leadingFolders(tpl config.TargetTemplate) int {
	n := 0
	for n < len(tpl.Segments) && tpl.Part(n) == "" {
		n++
	}
	return n
}

// HasErrors reports whether any diagnostic is an error.
func (r *Repo) HasErrors() bool {
	return slices.ContainsFunc(r.Diagnostics, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// TargetRef names a target.
type TargetRef struct{ Cluster, Namespace string }
