package config

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gobwas/glob"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// GitConfig locates the repository for Argo CD.
type GitConfig struct {
	// RepoURL is the URL Argo CD clones, e.g. https://github.com/org/gitops.git.
	RepoURL string `yaml:"repoURL" json:"repoURL,omitempty"`
	// Revision is the branch, tag or commit Argo CD tracks. Default "HEAD".
	Revision string `yaml:"revision" json:"revision,omitempty"`
	// Path is the folder of this layout inside the Git repository, when the
	// layout is not at the repository root. Default ".".
	Path string `yaml:"path" json:"path,omitempty"`
}

// ArgoCDConfig configures the generated Argo CD objects.
type ArgoCDConfig struct {
	// Namespace is where Argo CD runs and its objects live. Default "argocd".
	Namespace string `yaml:"namespace" json:"namespace,omitempty"`
	// OutputDir is where repotool generate writes, relative to the
	// repository root: <OutputDir>/<cluster>/. Default "argocd".
	OutputDir string `yaml:"outputDir" json:"outputDir,omitempty"`
	// PluginName is the Config Management Plugin's name. Default "repotool".
	PluginName string `yaml:"pluginName" json:"pluginName,omitempty"`
	// PluginDiscovery adds a discovery rule to plugin.yaml. Off by
	// default: every generated Application names the plugin, and a plugin
	// with a discovery rule makes the repo-server send the sidecar the
	// repository twice per render (once to ask, once to generate). Only
	// for Applications written by hand without a plugin name.
	PluginDiscovery bool `yaml:"pluginDiscovery" json:"pluginDiscovery,omitempty"`
	// ServerSideDiff makes every target's Application compare with Argo
	// CD's server-side diff (the compare option ServerSideDiff=true): the
	// API server's dry run, admission included, predicts the live object,
	// so what the cluster's mutating policies change is not drift.
	ServerSideDiff bool `yaml:"serverSideDiff" json:"serverSideDiff,omitempty"`
	// AdmissionIgnoreDifferences makes generate write, into each
	// Application's ignoreDifferences, the fields of its objects that the
	// cluster's mutating admission policies change and Argo CD would show
	// as drift (what the lint rule admission-drift reports otherwise):
	// generate then renders every target of the clusters it generates.
	AdmissionIgnoreDifferences bool `yaml:"admissionIgnoreDifferences" json:"admissionIgnoreDifferences,omitempty"`
	// SREGroups are the SSO groups that may sync every project.
	SREGroups []string `yaml:"sreGroups" json:"sreGroups,omitempty"`
	// OwnerActions are the Argo CD actions on an application's resources
	// that its owners' project role gets besides get, sync and logs: Argo
	// CD 3.0's fine-grained update and delete, such as "delete/*/Pod/*/*"
	// (restart a pod by deleting it). None by default: they change the
	// cluster outside Git. See OwnerActionRE.
	OwnerActions []string `yaml:"ownerActions" json:"ownerActions,omitempty"`
	// SecurityKinds are the kinds the "namespaces" tier owns (group/Kind,
	// "" group for the core API), replacing the default list.
	SecurityKinds []string `yaml:"securityKinds" json:"securityKinds,omitempty"`
	// SystemNamespaces are namespaces outside the repository's folders
	// that the cluster tier may deploy into (platform charts keep
	// leader-election locks and webhooks' objects there). Default
	// DefaultSystemNamespaces; an empty list allows none.
	SystemNamespaces []string `yaml:"systemNamespaces" json:"systemNamespaces,omitempty"`
	// Tiers holds per-tier sync settings: keys "cluster", "namespaces",
	// "application".
	Tiers map[ArgoTier]TierConfig `yaml:"tiers" json:"tiers,omitempty"`
	// ResourceExclusions mirror argocd-cm's resource.exclusions: the kinds
	// Argo CD leaves out of every Application (lint warns when a target
	// renders one). Unset: Argo CD 3's defaults
	// (argocd.DefaultResourceExclusions); an empty list: none but those
	// Argo CD's code always excludes (argocd.CoreExcludedResources).
	ResourceExclusions []ResourceFilter `yaml:"resourceExclusions" json:"resourceExclusions,omitempty"`
	// Source is where the generated Applications get their manifests:
	// "plugin" (default), "hydrated" or "source-hydrator" (docs/hydrate.md).
	Source string `yaml:"source" json:"source,omitempty"`
	// IgnoreDifferences go into every generated Application's
	// spec.ignoreDifferences (namespaces.<ns>.ignoreDifferences add to
	// them); repotool diff honours their jsonPointers.
	IgnoreDifferences []IgnoreDifference `yaml:"ignoreDifferences" json:"ignoreDifferences,omitempty"`
	// Hydrated configures the hydrated branches of the hydrated and
	// source-hydrator sources.
	Hydrated HydratedConfig `yaml:"hydrated" json:"hydrated,omitempty"`
}

// The values of argocd.source.
const (
	SourcePlugin         = "plugin"
	SourceHydrated       = "hydrated"
	SourceSourceHydrator = "source-hydrator"
)

// HydratedConfig names the hydrated branches.
type HydratedConfig struct {
	// BranchPrefix makes each cluster's branch: BranchPrefix + cluster.
	// Default "hydrated/".
	BranchPrefix string `yaml:"branchPrefix" json:"branchPrefix,omitempty"`
	// HydrateTo (source-hydrator): Argo CD's hydrator commits to the
	// branch + "-next" and syncs the branch, which a pull request (GitOps
	// Promoter's) moves.
	HydrateTo bool `yaml:"hydrateTo" json:"hydrateTo,omitempty"`
}

// SourceMode is argocd.source, "plugin" when unset.
func (a ArgoCDConfig) SourceMode() string { return cmp.Or(a.Source, SourcePlugin) }

// HydratedBranch is the hydrated branch of cluster.
func (a ArgoCDConfig) HydratedBranch(cluster string) string {
	return cmp.Or(a.Hydrated.BranchPrefix, "hydrated/") + cluster
}

// ResourceFilter is one entry of Argo CD's resource.exclusions: the API
// groups (globs; "" the core group), kinds ("*" or exact) and clusters
// (globs of the cluster's server URL) it matches; an empty list matches
// everything.
type ResourceFilter struct {
	APIGroups []string `yaml:"apiGroups" json:"apiGroups,omitempty"`
	Kinds     []string `yaml:"kinds" json:"kinds,omitempty"`
	Clusters  []string `yaml:"clusters" json:"clusters,omitempty"`
}

// DefaultSystemNamespaces are the namespaces the cluster tier may deploy
// into besides its own: kube-system, where cert-manager, for one, takes
// its leader-election locks by default.
var DefaultSystemNamespaces = []string{"kube-system"}

// ClusterSystemNamespaces returns ArgoCD.SystemNamespaces, or the default
// when it is not set.
func (c *Config) ClusterSystemNamespaces() []string {
	if c.ArgoCD.SystemNamespaces == nil {
		return DefaultSystemNamespaces
	}
	return c.ArgoCD.SystemNamespaces
}

// TierConfig is one responsibility tier's sync settings.
type TierConfig struct {
	// Automated turns on automated sync (manual by default).
	Automated bool `yaml:"automated" json:"automated,omitempty"`
	// Prune and SelfHeal apply to automated sync.
	Prune    bool `yaml:"prune" json:"prune,omitempty"`
	SelfHeal bool `yaml:"selfHeal" json:"selfHeal,omitempty"`
	// AutomatedEnabled, when set, writes Argo CD 3.1's
	// syncPolicy.automated.enabled: false keeps the automated settings and
	// pauses them; true turns automated sync on.
	AutomatedEnabled *bool `yaml:"automatedEnabled" json:"automatedEnabled,omitempty"`
	// SyncWindows restrict when the tier's applications may sync.
	SyncWindows []SyncWindow `yaml:"syncWindows" json:"syncWindows,omitempty"`
	// SyncOptions are Argo CD sync options (Name=value, see SyncOptionNames)
	// of the tier's Applications, such as ServerSideApply=true.
	SyncOptions []string `yaml:"syncOptions" json:"syncOptions,omitempty"`
}

// SyncWindow is an Argo CD project sync window.
type SyncWindow struct {
	Kind         string   `yaml:"kind" json:"kind"`
	Schedule     string   `yaml:"schedule" json:"schedule"`
	Duration     string   `yaml:"duration" json:"duration"`
	Applications []string `yaml:"applications" json:"applications,omitempty"`
	Namespaces   []string `yaml:"namespaces" json:"namespaces,omitempty"`
	Clusters     []string `yaml:"clusters" json:"clusters,omitempty"`
	ManualSync   bool     `yaml:"manualSync" json:"manualSync,omitempty"`
	TimeZone     string   `yaml:"timeZone" json:"timeZone,omitempty"`
}

// Notification subscribes a channel to an Argo CD notifications trigger.
type Notification struct {
	// Trigger, e.g. "on-sync-failed".
	Trigger string `yaml:"trigger" json:"trigger"`
	// Service, e.g. "slack".
	Service string `yaml:"service" json:"service"`
	// Recipients, e.g. Slack channels.
	Recipients []string `yaml:"recipients" json:"recipients"`
}

// ArgoTier is one of Argo CD's three responsibility tiers, as named in
// repotool.yaml argocd.tiers and the plugin's TIER variable.
type ArgoTier string

// The Argo CD tiers.
const (
	// ArgoTierCluster holds the cluster-tier namespaces' manifests.
	ArgoTierCluster ArgoTier = "cluster"
	// ArgoTierNamespaces holds the security kinds of the application
	// namespaces (the Namespace, secrets, ingress, RBAC, ...).
	ArgoTierNamespaces ArgoTier = "namespaces"
	// ArgoTierApplication holds the rest of an application namespace.
	ArgoTierApplication ArgoTier = "application"
)

// ArgoTiers returns the Argo CD tiers, in the order above.
func ArgoTiers() []ArgoTier {
	return []ArgoTier{ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication}
}

// ParseArgoTier reads an Argo CD tier name.
func ParseArgoTier(s string) (ArgoTier, error) {
	switch t := ArgoTier(s); t {
	case ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication:
		return t, nil
	}
	return "", fmt.Errorf("unknown tier %q: use %s, %s or %s", s, ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication)
}

func validateArgoCD(file string, root *yaml.Node, cfg *Config) error {
	a := cfg.ArgoCD
	bad := badAt(file, root)
	if a.Namespace != "" {
		if err := checkName(a.Namespace); err != nil {
			return bad("argocd.namespace: "+err.Error(), "argocd", "namespace")
		}
	}
	if s := a.Source; s != "" && s != SourcePlugin && s != SourceHydrated && s != SourceSourceHydrator {
		return bad(fmt.Sprintf("argocd.source: %q is not a source: use %s, %s or %s", s, SourcePlugin, SourceHydrated, SourceSourceHydrator), "argocd", "source")
	}
	if err := validateBranchPrefix(root, a, bad); err != nil {
		return err
	}
	if a.OutputDir != "" && !fsValidPath(a.OutputDir) {
		return bad(fmt.Sprintf("argocd.outputDir: %q must be a relative folder inside the repository", a.OutputDir), "argocd", "outputDir")
	}
	for _, k := range a.SecurityKinds {
		if !strings.Contains(k, "/") {
			return bad(fmt.Sprintf("argocd.securityKinds: %q must be group/Kind, with an empty group for the core API (\"/Secret\")", k), "argocd", "securityKinds")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a.Tiers)) {
		switch name {
		case ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication:
		default:
			return bad(
				fmt.Sprintf("argocd.tiers: %q is not a tier; use %s, %s or %s", name, ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication),
				"argocd",
				"tiers",
				string(name),
			)
		}
		for i, w := range a.Tiers[name].SyncWindows {
			if w.Kind != "allow" && w.Kind != "deny" || w.Schedule == "" || w.Duration == "" {
				return bad(
					fmt.Sprintf("argocd.tiers.%s.syncWindows[%d]: kind (allow or deny), schedule and duration are required", name, i),
					"argocd",
					"tiers",
					string(name),
					"syncWindows",
				)
			}
		}
		if err := checkSyncOptions(a.Tiers[name].SyncOptions); err != nil {
			return bad(fmt.Sprintf("argocd.tiers.%s.syncOptions: %v", name, err), "argocd", "tiers", string(name), "syncOptions")
		}
	}
	for i, f := range a.ResourceExclusions {
		for _, pat := range slices.Concat(f.APIGroups, f.Clusters) {
			if _, err := glob.Compile(pat); err != nil {
				return bad(fmt.Sprintf("argocd.resourceExclusions[%d]: %q is not a glob: %v", i, pat, err), "argocd", "resourceExclusions")
			}
		}
	}
	for _, act := range a.OwnerActions {
		if !OwnerActionRE.MatchString(act) {
			return bad(
				fmt.Sprintf(
					"argocd.ownerActions: %q is not an action on an application's resources: use update/<group>/<kind>/<namespace>/<name> or delete/... with * globs "+
						"(\"delete/*/Pod/*/*\"), or action/<group>/<kind>/<action>",
					act,
				),
				"argocd",
				"ownerActions",
			)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		for i, n := range cfg.Namespaces[name].Notifications {
			if n.Trigger == "" || n.Service == "" || len(n.Recipients) == 0 {
				return bad(fmt.Sprintf("namespaces.%s.notifications[%d]: trigger, service and recipients are required", name, i), "namespaces", name, "notifications")
			}
		}
		if err := checkSyncOptions(cfg.Namespaces[name].SyncOptions); err != nil {
			return bad(fmt.Sprintf("namespaces.%s.syncOptions: %v", name, err), "namespaces", name, "syncOptions")
		}
	}
	return nil
}

// validateBranchPrefix refuses an argocd.hydrated.branchPrefix given
// empty or that cannot begin a Git branch name.
func validateBranchPrefix(root *yaml.Node, a ArgoCDConfig, bad func(msg string, keys ...string) error) error {
	if n, _ := yamlpos.Lookup(root, "argocd", "hydrated", "branchPrefix"); n != nil && a.Hydrated.BranchPrefix == "" {
		return bad("argocd.hydrated.branchPrefix: an empty prefix names each branch after its cluster alone, beside the repository's own branches; "+
			"leave the key out for the default hydrated/, or give a prefix", "argocd", "hydrated", "branchPrefix")
	}
	if p := a.Hydrated.BranchPrefix; p != "" && (strings.ContainsAny(p, " ~^:?*[\\") || strings.HasPrefix(p, "/") || strings.Contains(p, "..")) {
		return bad(fmt.Sprintf("argocd.hydrated.branchPrefix: %q cannot begin a Git branch name", p), "argocd", "hydrated", "branchPrefix")
	}
	return nil
}
