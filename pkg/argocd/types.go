package argocd

import "github.com/repotool/repotool/pkg/config"

// APIVersion of every Argo CD object repotool generates.
const APIVersion = "argoproj.io/v1alpha1"

// MaxDescription is the longest AppProject spec.description Argo CD's CRD
// accepts (maxLength since Argo CD 3.1): the API server refuses a longer
// one, and with it the root application's sync. Generated descriptions
// name at most one cluster and one namespace (63 characters each).
const MaxDescription = 255

// TypeMeta is apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ObjectMeta is the metadata repotool sets.
type ObjectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
}

// AppProject is an Argo CD project.
type AppProject struct {
	TypeMeta
	Metadata ObjectMeta     `json:"metadata"`
	Spec     AppProjectSpec `json:"spec"`
}

// AppProjectSpec is the part of the project spec repotool sets.
type AppProjectSpec struct {
	Description                string                   `json:"description,omitempty"`
	SourceRepos                []string                 `json:"sourceRepos"`
	Destinations               []ApplicationDestination `json:"destinations"`
	ClusterResourceWhitelist   []GroupKind              `json:"clusterResourceWhitelist"`
	ClusterResourceBlacklist   []GroupKind              `json:"clusterResourceBlacklist,omitempty"`
	NamespaceResourceWhitelist []GroupKind              `json:"namespaceResourceWhitelist,omitempty"`
	NamespaceResourceBlacklist []GroupKind              `json:"namespaceResourceBlacklist,omitempty"`
	Roles                      []ProjectRole            `json:"roles,omitempty"`
	SyncWindows                []SyncWindow             `json:"syncWindows,omitempty"`
}

// GroupKind names a kind in an API group ("" for the core API, "*" for any).
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// ApplicationDestination is where an Application deploys.
type ApplicationDestination struct {
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// ProjectRole grants groups access to a project's applications.
type ProjectRole struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Policies    []string `json:"policies,omitempty"`
	Groups      []string `json:"groups,omitempty"`
}

// SyncWindow restricts when applications may sync.
type SyncWindow struct {
	Kind         string   `json:"kind"`
	Schedule     string   `json:"schedule"`
	Duration     string   `json:"duration"`
	Applications []string `json:"applications,omitempty"`
	Namespaces   []string `json:"namespaces,omitempty"`
	Clusters     []string `json:"clusters,omitempty"`
	ManualSync   bool     `json:"manualSync,omitempty"`
	TimeZone     string   `json:"timeZone,omitempty"`
}

// Application is an Argo CD application.
type Application struct {
	TypeMeta
	Metadata ObjectMeta      `json:"metadata"`
	Spec     ApplicationSpec `json:"spec"`
}

// ApplicationSpec is the part of the application spec repotool sets.
type ApplicationSpec struct {
	Project string             `json:"project"`
	Source  *ApplicationSource `json:"source,omitempty"`
	// SourceHydrator replaces Source for argocd.source source-hydrator.
	SourceHydrator *SourceHydrator        `json:"sourceHydrator,omitempty"`
	Destination    ApplicationDestination `json:"destination"`
	SyncPolicy     *SyncPolicy            `json:"syncPolicy,omitempty"`
	// IgnoreDifferences are repotool.yaml's argocd.ignoreDifferences and
	// the namespace's.
	IgnoreDifferences []config.IgnoreDifference `json:"ignoreDifferences,omitempty"`
}

// SourceHydrator is Argo CD's spec.sourceHydrator: the dry source it
// renders, the branch and path it commits the manifests to and syncs
// from, and, with HydrateTo, the branch it commits to instead (promoted
// to the sync branch by a pull request).
type SourceHydrator struct {
	DrySource  DrySource  `json:"drySource"`
	SyncSource SyncSource `json:"syncSource"`
	HydrateTo  *HydrateTo `json:"hydrateTo,omitempty"`
}

// DrySource is the source the hydrator renders.
type DrySource struct {
	RepoURL        string                   `json:"repoURL"`
	TargetRevision string                   `json:"targetRevision"`
	Path           string                   `json:"path"`
	Plugin         *ApplicationSourcePlugin `json:"plugin,omitempty"`
}

// SyncSource is where the hydrated manifests are synced from.
type SyncSource struct {
	TargetBranch string `json:"targetBranch"`
	Path         string `json:"path"`
}

// HydrateTo is the branch the hydrator commits to when it is not the
// sync branch.
type HydrateTo struct {
	TargetBranch string `json:"targetBranch"`
}

// ApplicationSource is a Git source rendered by a plugin or read as a
// folder of manifests.
type ApplicationSource struct {
	RepoURL        string                      `json:"repoURL"`
	Path           string                      `json:"path,omitempty"`
	TargetRevision string                      `json:"targetRevision,omitempty"`
	Plugin         *ApplicationSourcePlugin    `json:"plugin,omitempty"`
	Directory      *ApplicationSourceDirectory `json:"directory,omitempty"`
}

// ApplicationSourcePlugin selects a Config Management Plugin.
type ApplicationSourcePlugin struct {
	Name string     `json:"name,omitempty"`
	Env  []EnvEntry `json:"env,omitempty"`
}

// EnvEntry is a plugin environment variable (Argo CD prefixes ARGOCD_ENV_).
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ApplicationSourceDirectory reads a folder of plain manifests.
type ApplicationSourceDirectory struct {
	Recurse bool `json:"recurse,omitempty"`
}

// SyncPolicy is when and how an application syncs.
type SyncPolicy struct {
	Automated   *SyncPolicyAutomated `json:"automated,omitempty"`
	SyncOptions []string             `json:"syncOptions,omitempty"`
}

// SyncPolicyAutomated turns on automated sync.
type SyncPolicyAutomated struct {
	// Enabled (Argo CD 3.1) pauses automated sync when false; unset, it is
	// on.
	Enabled  *bool `json:"enabled,omitempty"`
	Prune    bool  `json:"prune,omitempty"`
	SelfHeal bool  `json:"selfHeal,omitempty"`
}

// ConfigManagementPlugin is the sidecar plugin configuration (plugin.yaml).
type ConfigManagementPlugin struct {
	TypeMeta
	Metadata ObjectMeta `json:"metadata"`
	Spec     PluginSpec `json:"spec"`
}

// PluginSpec is a plugin's commands.
type PluginSpec struct {
	Generate         PluginCommand   `json:"generate"`
	Discover         *PluginDiscover `json:"discover,omitempty"`
	PreserveFileMode bool            `json:"preserveFileMode,omitempty"`
}

// PluginCommand is a command and its arguments.
type PluginCommand struct {
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
}

// PluginDiscover says which applications the plugin handles.
type PluginDiscover struct {
	Find *PluginFind `json:"find,omitempty"`
}

// PluginFind is a discovery command: the plugin handles the application
// when the command prints something.
type PluginFind struct {
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
}
