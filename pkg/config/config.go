package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/gobwas/glob"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// FileName is the name of the optional configuration file at the
// repository root.
const FileName = "repotool.yaml"

// DefaultKubeVersion is the Kubernetes version a cluster is assumed to run
// when neither the cluster nor the defaults in repotool.yaml say otherwise.
// It is the oldest Kubernetes minor still supported upstream (1.35, 1.36 and
// 1.37 as of November 2026), never Helm's built-in v1.20 default. Raise it
// when a minor reaches end of life.
const DefaultKubeVersion = "v1.35.0"

// Tier says who is responsible for a namespace's manifests.
type Tier string

const (
	// TierApplication is an application namespace: its manifests are split
	// between the shared "namespaces" project and the namespace's own project.
	TierApplication Tier = "application"
	// TierCluster is a cluster-wide platform component (Argo CD, cert-manager,
	// External Secrets Operator...) that may create cluster-scoped resources.
	TierCluster Tier = "cluster"
)

// Config is the content of repotool.yaml: what the folder structure cannot
// say. The zero value is not useful; start from DefaultConfig.
type Config struct {
	// Git says where the repository lives, for generated Argo CD objects.
	Git GitConfig `yaml:"git" json:"git"`
	// Defaults apply to every cluster that does not override them.
	Defaults ClusterDefaults `yaml:"defaults" json:"defaults"`
	// Clusters holds per-cluster facts, keyed by cluster folder name.
	Clusters map[string]ClusterConfig `yaml:"clusters" json:"clusters,omitempty"`
	// Namespaces holds per-namespace settings, keyed by namespace folder name.
	Namespaces map[string]NamespaceConfig `yaml:"namespaces" json:"namespaces,omitempty"`
	// Layout overrides the folder names and file patterns.
	Layout LayoutConfig `yaml:"layout" json:"layout"`
	// Lint configures repotool lint.
	Lint LintConfig `yaml:"lint" json:"lint"`
	// ArgoCD configures repotool generate (Argo CD AppProjects and
	// Applications).
	ArgoCD ArgoCDConfig `yaml:"argocd" json:"argocd"`
	// Migrate configures repotool migrate.
	Migrate MigrateConfig `yaml:"migrate" json:"migrate,omitempty"`
	// Render configures rendering, in every command.
	Render RenderConfig `yaml:"render" json:"render,omitzero"`
}

// MigrateConfig configures repotool migrate.
type MigrateConfig struct {
	// KESToESO are the backend settings `migrate kes-to-eso` writes into
	// the SecretStores it creates (what kubernetes-external-secrets read
	// from its deployment: a region, a Vault address, ...), by name such
	// as "aws.region" or "vault.server"; see docs/migrate.md.
	KESToESO map[string]string `yaml:"kesToEso" json:"kesToEso,omitempty"`
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

// LintConfig configures repotool lint.
type LintConfig struct {
	// Ignore suppresses findings by rule and path or object, for files that
	// cannot carry a "# repotool:ignore" comment (third-party charts,
	// vendored archives).
	Ignore []LintIgnore `yaml:"ignore" json:"ignore,omitempty"`
	// Deprecations extend the built-in table of deprecated and removed API
	// versions used by the stray-api-version rule.
	Deprecations []Deprecation `yaml:"deprecations" json:"deprecations,omitempty"`
	// SchemaLocations are extra kubeconform schema locations (folders, or
	// file or URL templates) for custom resources whose CRDs are installed
	// some other way; URLs are downloaded once into the cache.
	SchemaLocations []string `yaml:"schemaLocations" json:"schemaLocations,omitempty"`
	// Rules configure rules by ID: lint.rules.<id>.severity.
	Rules map[string]RuleConfig `yaml:"rules" json:"rules,omitempty"`
}

// RuleConfig configures one lint rule.
type RuleConfig struct {
	// Severity replaces the severity of every finding of the rule: error,
	// warning or info; off turns the rule off. Empty: the rule's own.
	Severity string `yaml:"severity" json:"severity,omitempty"`

	// Line is where the entry is in repotool.yaml (set by Parse).
	Line int `yaml:"-" json:"-"`
}

// LintIgnore suppresses the findings of one rule that match every pattern
// given (path.Match syntax; "**" is not special).
type LintIgnore struct {
	// Rule is the rule ID, e.g. "plaintext-secret".
	Rule string `yaml:"rule" json:"rule"`
	// Path matches the finding's file, e.g. "namespaces/argocd/*".
	Path string `yaml:"path" json:"path,omitempty"`
	// Object matches the object, "apiVersion/Kind namespace/name", e.g.
	// "v1/Secret argocd/cluster-*".
	Object string `yaml:"object" json:"object,omitempty"`
	// Cluster matches the target's cluster.
	Cluster string `yaml:"cluster" json:"cluster,omitempty"`
	// Reason says why; it is required.
	Reason string `yaml:"reason" json:"reason"`

	// Line is where the entry starts in repotool.yaml (set by Parse).
	Line int `yaml:"-" json:"-"`
}

// Deprecation is one entry of the deprecated-API table.
type Deprecation struct {
	APIVersion string `yaml:"apiVersion" json:"apiVersion"`
	Kind       string `yaml:"kind" json:"kind"`
	// DeprecatedIn and RemovedIn are Kubernetes versions ("1.22"); empty
	// when the API is not a Kubernetes one or not scheduled.
	DeprecatedIn string `yaml:"deprecatedIn" json:"deprecatedIn,omitempty"`
	RemovedIn    string `yaml:"removedIn" json:"removedIn,omitempty"`
	// Removed marks an API that is gone whatever the cluster version (a
	// third-party API its project no longer serves).
	Removed bool `yaml:"removed" json:"removed,omitempty"`
	// Replacement is the apiVersion to use instead, if any.
	Replacement string `yaml:"replacement" json:"replacement,omitempty"`
	// Note adds advice, e.g. "the project is archived".
	Note string `yaml:"note" json:"note,omitempty"`
}

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

// ClusterDefaults are the settings every cluster inherits.
type ClusterDefaults struct {
	// KubeVersion is the Kubernetes version charts render against
	// (Capabilities.KubeVersion), e.g. "v1.33.0".
	KubeVersion string `yaml:"kubeVersion" json:"kubeVersion,omitempty"`
	// APIVersions are extra API versions the cluster serves on top of the
	// built-in ones (Capabilities.APIVersions), e.g. "monitoring.coreos.com/v1".
	APIVersions []string `yaml:"apiVersions" json:"apiVersions,omitempty"`
	// Provided are objects the cluster has that Git does not create (a
	// Secret made by hand, a ClusterSecretStore installed by another
	// team), as "Kind name" (cluster-scoped) or "Kind namespace/name";
	// the name may be a glob ("Secret shop/tls-*"). The cross-object rules
	// count them as present.
	Provided []string `yaml:"provided" json:"provided,omitempty"`
}

// ClusterConfig holds one cluster's facts.
type ClusterConfig struct {
	// KubeVersion overrides Defaults.KubeVersion.
	KubeVersion string `yaml:"kubeVersion" json:"kubeVersion,omitempty"`
	// APIVersions are added to Defaults.APIVersions.
	APIVersions []string `yaml:"apiVersions" json:"apiVersions,omitempty"`
	// Provided are added to Defaults.Provided.
	Provided []string `yaml:"provided" json:"provided,omitempty"`
	// Destination is where the cluster's Argo CD deploys (normally the
	// cluster it runs in).
	Destination Destination `yaml:"destination" json:"destination"`
}

// Destination is an Argo CD application destination.
type Destination struct {
	// Server is the Kubernetes API URL. Default https://kubernetes.default.svc.
	Server string `yaml:"server" json:"server,omitempty"`
	// Name is the Argo CD cluster name; used instead of Server when set.
	Name string `yaml:"name" json:"name,omitempty"`
}

// NamespaceConfig holds one namespace's settings.
type NamespaceConfig struct {
	// Tier is "application" (default) or "cluster".
	Tier Tier `yaml:"tier" json:"tier,omitempty"`
	// Owners are the SSO groups of the teams that own the namespace: they
	// may sync its application project.
	Owners []string `yaml:"owners" json:"owners,omitempty"`
	// Notifications subscribe channels to Argo CD notifications for the
	// namespace's Applications.
	Notifications []Notification `yaml:"notifications" json:"notifications,omitempty"`
	// SyncOptions are added to the tier's for the namespace's
	// Applications; an option the tier sets too is replaced.
	SyncOptions []string `yaml:"syncOptions" json:"syncOptions,omitempty"`
	// AutomatedEnabled replaces the tier's for the namespace's
	// Applications (see TierConfig.AutomatedEnabled).
	AutomatedEnabled *bool `yaml:"automatedEnabled" json:"automatedEnabled,omitempty"`
}

// LayoutConfig overrides the folder names and file patterns, so that
// repositories with a slightly different layout can adopt repotool.
type LayoutConfig struct {
	// NamespacesDir holds one chart folder per namespace. Default "namespaces".
	NamespacesDir string `yaml:"namespacesDir" json:"namespacesDir"`
	// ClustersDir holds one folder per cluster. Default "clusters".
	ClustersDir string `yaml:"clustersDir" json:"clustersDir"`
	// CommonValues are the file-name patterns (path.Match syntax) of the values
	// files in a namespace folder that every cluster shares. The chart's own
	// values.yaml is never one of them: Helm loads it itself.
	// Default ["*values*.yaml", "*values*.yml"].
	CommonValues []string `yaml:"commonValues" json:"commonValues"`
	// ClusterValues are the file-name patterns of the values files in
	// clusters/<cluster>/<namespace>/. Default ["*values*.yaml", "*values*.yml"].
	ClusterValues []string `yaml:"clusterValues" json:"clusterValues"`
	// SecretSuffixes mark SOPS-encrypted values files.
	// Default [".secret.yaml", ".secret.yml"].
	SecretSuffixes []string `yaml:"secretSuffixes" json:"secretSuffixes"`
}

// DefaultConfig returns the configuration that applies when the repository
// has no repotool.yaml.
func DefaultConfig() Config {
	return Config{
		Git:      GitConfig{Revision: "HEAD", Path: "."},
		Defaults: ClusterDefaults{KubeVersion: DefaultKubeVersion},
		Layout: LayoutConfig{
			NamespacesDir:  "namespaces",
			ClustersDir:    "clusters",
			CommonValues:   []string{"*values*.yaml", "*values*.yml"},
			ClusterValues:  []string{"*values*.yaml", "*values*.yml"},
			SecretSuffixes: []string{".secret.yaml", ".secret.yml"},
		},
	}
}

// ClusterKubeVersion returns the Kubernetes version of a cluster: its own,
// else the default, else DefaultKubeVersion.
func (c *Config) ClusterKubeVersion(cluster string) string {
	if v := c.Clusters[cluster].KubeVersion; v != "" {
		return v
	}
	if c.Defaults.KubeVersion != "" {
		return c.Defaults.KubeVersion
	}
	return DefaultKubeVersion
}

// ClusterAPIVersions returns the extra API versions of a cluster: the
// defaults followed by the cluster's own, sorted and de-duplicated.
func (c *Config) ClusterAPIVersions(cluster string) []string {
	out := slices.Concat(c.Defaults.APIVersions, c.Clusters[cluster].APIVersions)
	slices.Sort(out)
	return slices.Compact(out)
}

// ProvidedObject is an entry of Provided: an object the cluster has that
// Git does not create.
type ProvidedObject struct {
	Kind, Namespace, Name string // Name may be a glob
}

// ClusterProvided returns the objects a cluster has outside Git: the
// defaults' and the cluster's own.
func (c *Config) ClusterProvided(cluster string) []ProvidedObject {
	var out []ProvidedObject
	for _, p := range slices.Concat(c.Defaults.Provided, c.Clusters[cluster].Provided) {
		o, _ := parseProvided(p)
		out = append(out, o)
	}
	return out
}

// parseProvided reads "Kind name" or "Kind namespace/name".
func parseProvided(s string) (ProvidedObject, error) {
	kind, ref, ok := strings.Cut(strings.TrimSpace(s), " ")
	ref = strings.TrimSpace(ref)
	if !ok || kind == "" || ref == "" || strings.Count(ref, "/") > 1 {
		return ProvidedObject{}, fmt.Errorf("%q must be \"Kind name\" or \"Kind namespace/name\" (for example \"Secret shop/db-credentials\")", s)
	}
	ns, name, found := strings.Cut(ref, "/")
	if !found {
		ns, name = "", ref
	}
	if _, err := path.Match(name, ""); err != nil {
		return ProvidedObject{}, fmt.Errorf("%q: the name is not a valid glob", s)
	}
	return ProvidedObject{Kind: kind, Namespace: ns, Name: name}, nil
}

// Provides reports whether the entry covers kind namespace/name.
func (p ProvidedObject) Provides(kind, namespace, name string) bool {
	ok, _ := path.Match(p.Name, name)
	return ok && p.Kind == kind && p.Namespace == namespace
}

// NamespaceTier returns a namespace's tier (TierApplication by default).
func (c *Config) NamespaceTier(ns string) Tier {
	if t := c.Namespaces[ns].Tier; t != "" {
		return t
	}
	return TierApplication
}

// Error is an invalid repotool.yaml. It names the file and line and
// says how to fix it.
type Error struct {
	File    string
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Message)
}

var unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)

// Parse parses repotool.yaml content. Unknown keys, wrong types and
// invalid values are a *Error naming file and line. Settings the file
// leaves out keep their DefaultConfig value. It also returns the parsed node
// tree, so callers can point later diagnostics at lines of the file.
func Parse(file string, data []byte) (Config, *yaml.Node, error) {
	cfg := DefaultConfig()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return cfg, nil, &Error{File: file, Line: line, Message: "not valid YAML: " + msg}
	}
	if len(root.Content) == 0 { // empty file
		return cfg, &root, nil
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return cfg, nil, &Error{File: file, Line: root.Content[0].Line, Message: "the file must be a mapping of settings (git, defaults, clusters, namespaces, layout)"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("unknown key %q: remove it or check its spelling (see docs/layout.md for the keys repotool.yaml accepts)", m[1])
		}
		msg = typeErrorWords(msg)
		return cfg, nil, &Error{File: file, Line: line, Message: msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return cfg, nil, &Error{File: file, Line: extra.Line, Message: "the file must hold a single YAML document; remove the second one"}
	}
	cfg.Layout.ApplyDefaults()
	if err := validateConfig(file, &root, &cfg); err != nil {
		return cfg, nil, err
	}
	return cfg, &root, nil
}

var typeErrorRE = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: `[^`]*`)? into (\\S+)")

// typeErrorWords rewrites yaml's "cannot unmarshal !!seq into
// map[string]layout.ClusterConfig" in the user's words: what was expected,
// and what was found.
func typeErrorWords(msg string) string {
	m := typeErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	found := map[string]string{"seq": "a list", "map": "a mapping", "str": "a string", "int": "a number", "float": "a number", "bool": "true or false", "null": "nothing", "binary": "binary data", "timestamp": "a date"}[m[1]]
	want := "a different type"
	switch t := m[2]; {
	case strings.HasPrefix(t, "map["):
		want = "a mapping (key: value)"
	case t == "[]string":
		want = "a list of strings"
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	case t == "string":
		want = "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		want = "a number"
	case t == "bool":
		want = "true or false"
	case strings.Contains(t, "."):
		want = "a mapping of settings"
	}
	return fmt.Sprintf("expected %s here, found %s", want, cmp.Or(found, "a value of another type"))
}

// applyLayoutDefaults restores defaults for layout settings explicitly set empty.
func (l *LayoutConfig) ApplyDefaults() {
	d := DefaultConfig().Layout
	if l.NamespacesDir == "" {
		l.NamespacesDir = d.NamespacesDir
	}
	if l.ClustersDir == "" {
		l.ClustersDir = d.ClustersDir
	}
	if len(l.CommonValues) == 0 {
		l.CommonValues = d.CommonValues
	}
	if len(l.ClusterValues) == 0 {
		l.ClusterValues = d.ClusterValues
	}
	if len(l.SecretSuffixes) == 0 {
		l.SecretSuffixes = d.SecretSuffixes
	}
}

func validateConfig(file string, root *yaml.Node, cfg *Config) error {
	bad := func(msg string, keys ...string) error {
		return &Error{File: file, Line: yamlpos.Line(root, 1, keys...), Message: msg}
	}
	if cfg.Defaults.KubeVersion != "" {
		if err := checkKubeVersion(cfg.Defaults.KubeVersion); err != nil {
			return bad("defaults.kubeVersion: "+err.Error(), "defaults", "kubeVersion")
		}
	}
	for _, v := range cfg.Defaults.APIVersions {
		if err := checkAPIVersion(v); err != nil {
			return bad("defaults.apiVersions: "+err.Error(), "defaults", "apiVersions")
		}
	}
	for _, p := range cfg.Defaults.Provided {
		if _, err := parseProvided(p); err != nil {
			return bad("defaults.provided: "+err.Error(), "defaults", "provided")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Clusters)) {
		c := cfg.Clusters[name]
		if err := checkName(name); err != nil {
			return bad(fmt.Sprintf("clusters: %q %v", name, err), "clusters", name)
		}
		if c.KubeVersion != "" {
			if err := checkKubeVersion(c.KubeVersion); err != nil {
				return bad(fmt.Sprintf("clusters.%s.kubeVersion: %v", name, err), "clusters", name, "kubeVersion")
			}
		}
		for _, v := range c.APIVersions {
			if err := checkAPIVersion(v); err != nil {
				return bad(fmt.Sprintf("clusters.%s.apiVersions: %v", name, err), "clusters", name, "apiVersions")
			}
		}
		for _, p := range c.Provided {
			if _, err := parseProvided(p); err != nil {
				return bad(fmt.Sprintf("clusters.%s.provided: %v", name, err), "clusters", name, "provided")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		if err := checkName(name); err != nil {
			return bad(fmt.Sprintf("namespaces: %q %v", name, err), "namespaces", name)
		}
		switch t := cfg.Namespaces[name].Tier; t {
		case "", TierApplication, TierCluster:
		default:
			return bad(fmt.Sprintf("namespaces.%s.tier: %q is not a tier; use %q or %q", name, t, TierApplication, TierCluster), "namespaces", name, "tier")
		}
	}
	if node, _ := yamlpos.Lookup(root, "lint", "ignore"); node != nil && node.Kind == yaml.SequenceNode {
		for i := range cfg.Lint.Ignore {
			if i < len(node.Content) {
				cfg.Lint.Ignore[i].Line = node.Content[i].Line
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.Lint.Rules)) {
		rc := cfg.Lint.Rules[id]
		rc.Line = yamlpos.Line(root, 1, "lint", "rules", id)
		cfg.Lint.Rules[id] = rc
		switch rc.Severity {
		case "", "error", "warning", "info", "off":
		default:
			return bad(fmt.Sprintf("lint.rules.%s.severity: %q is not a severity; use error, warning, info or off", id, rc.Severity), "lint", "rules", id, "severity")
		}
	}
	for i, ig := range cfg.Lint.Ignore {
		at := func(msg string) error {
			return &Error{File: file, Line: ig.Line, Message: fmt.Sprintf("lint.ignore[%d]: %s", i, msg)}
		}
		switch {
		case ig.Rule == "":
			return at("give the rule to ignore (rule: <rule-id>)")
		case strings.TrimSpace(ig.Reason) == "":
			return at("give a reason (reason: why this finding is acceptable)")
		case ig.Path == "" && ig.Object == "" && ig.Cluster == "":
			return at("give at least one of path, object or cluster; an ignore of a whole rule belongs in a rule's severity, not here")
		}
		for _, p := range []string{ig.Path, ig.Object, ig.Cluster} {
			if _, err := path.Match(p, ""); err != nil {
				return at(fmt.Sprintf("%q is not a valid pattern (path.Match syntax)", p))
			}
		}
	}
	if err := validateRender(file, root, cfg); err != nil {
		return err
	}
	if err := validateArgoCD(file, root, cfg); err != nil {
		return err
	}
	for i, d := range cfg.Lint.Deprecations {
		line := yamlpos.Line(root, 1, "lint", "deprecations")
		if d.APIVersion == "" || d.Kind == "" {
			return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: apiVersion and kind are required", i)}
		}
		for _, v := range []string{d.DeprecatedIn, d.RemovedIn} {
			if v != "" {
				if err := checkKubeVersion(v); err != nil {
					return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: %v", i, err)}
				}
			}
		}
		if !d.Removed && d.DeprecatedIn == "" && d.RemovedIn == "" {
			return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: say when: deprecatedIn, removedIn, or removed: true", i)}
		}
	}
	l := cfg.Layout
	for _, d := range []struct{ key, dir string }{{"namespacesDir", l.NamespacesDir}, {"clustersDir", l.ClustersDir}} {
		if !fsValidPath(d.dir) {
			return bad(fmt.Sprintf("layout.%s: %q must be a relative folder inside the repository, like \"namespaces\"", d.key, d.dir), "layout", d.key)
		}
	}
	if l.NamespacesDir == l.ClustersDir {
		return bad("layout: namespacesDir and clustersDir must be different folders", "layout")
	}
	for _, ps := range []struct {
		key  string
		pats []string
	}{{"commonValues", l.CommonValues}, {"clusterValues", l.ClusterValues}} {
		for _, p := range ps.pats {
			if _, err := path.Match(p, ""); err != nil || strings.Contains(p, "/") {
				return bad(fmt.Sprintf("layout.%s: %q is not a file-name pattern; use path.Match syntax without '/', like \"*values*.yaml\"", ps.key, p), "layout", ps.key)
			}
		}
	}
	for _, s := range l.SecretSuffixes {
		if !strings.HasPrefix(s, ".") || strings.Contains(s, "/") {
			return bad(fmt.Sprintf("layout.secretSuffixes: %q must be a file-name suffix starting with '.', like \".secret.yaml\"", s), "layout", "secretSuffixes")
		}
	}
	return nil
}

func checkKubeVersion(v string) error {
	sv, err := semver.NewVersion(v)
	if err != nil {
		return fmt.Errorf("%q is not a Kubernetes version; write it like \"v1.33.0\"", v)
	}
	if sv.Major() != 1 {
		return fmt.Errorf("%q is not a Kubernetes 1.x version; write it like \"v1.33.0\"", v)
	}
	return nil
}

var apiVersionRE = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?v[0-9]+((alpha|beta)[0-9]+)?(/[A-Za-z][A-Za-z0-9]*)?$`)

func checkAPIVersion(v string) error {
	if !apiVersionRE.MatchString(v) {
		return fmt.Errorf("%q is not an API version; write it like \"monitoring.coreos.com/v1\" or \"monitoring.coreos.com/v1/ServiceMonitor\"", v)
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func checkName(n string) error {
	if len(n) > 63 || !nameRE.MatchString(n) {
		return errors.New("is not a valid name: use lower-case letters, digits and '-', at most 63 characters (a Kubernetes DNS label)")
	}
	return nil
}

func fsValidPath(p string) bool {
	return p != "." && fs.ValidPath(p)
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
	bad := func(msg string, keys ...string) error {
		return &Error{File: file, Line: yamlpos.Line(root, 1, keys...), Message: msg}
	}
	if a.Namespace != "" {
		if err := checkName(a.Namespace); err != nil {
			return bad("argocd.namespace: "+err.Error(), "argocd", "namespace")
		}
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
			return bad(fmt.Sprintf("argocd.tiers: %q is not a tier; use %s, %s or %s", name, ArgoTierCluster, ArgoTierNamespaces, ArgoTierApplication), "argocd", "tiers", string(name))
		}
		for i, w := range a.Tiers[name].SyncWindows {
			if w.Kind != "allow" && w.Kind != "deny" || w.Schedule == "" || w.Duration == "" {
				return bad(fmt.Sprintf("argocd.tiers.%s.syncWindows[%d]: kind (allow or deny), schedule and duration are required", name, i), "argocd", "tiers", string(name), "syncWindows")
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
			return bad(fmt.Sprintf("argocd.ownerActions: %q is not an action on an application's resources: use update/<group>/<kind>/<namespace>/<name> or delete/... with * globs (\"delete/*/Pod/*/*\"), or action/<group>/<kind>/<action>", act), "argocd", "ownerActions")
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
