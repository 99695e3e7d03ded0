package config

// FileName is the name of the optional configuration file at the
// repository root.
const FileName = "repotool.yaml"

// DefaultKubeVersion is the Kubernetes version a cluster is assumed to run
// when neither the cluster nor the defaults in repotool.yaml say otherwise.
// It is the oldest Kubernetes minor still supported upstream (1.35, 1.36 and
// 1.37 as of November 2026), never Helm's built-in v1.20 default. Raise it
// when a minor reaches end of life.
const DefaultKubeVersion = "v1.35.0"

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
	// Hydrate configures repotool hydrate.
	Hydrate HydrateConfig `yaml:"hydrate" json:"hydrate,omitzero"`
	// Diff configures repotool diff.
	Diff DiffConfig `yaml:"diff" json:"diff,omitzero"`
	// Secrets configures decryption (the keys a trusted revision allows).
	Secrets SecretsConfig `yaml:"secrets" json:"secrets,omitzero"`
	// Applications says where the repository's own Argo CD Applications
	// are, each a target (docs/applications.md).
	Applications ApplicationsConfig `yaml:"applications" json:"applications,omitzero"`
}

// MigrateConfig configures repotool migrate.
type MigrateConfig struct {
	// KESToESO are the backend settings `migrate kes-to-eso` writes into
	// the SecretStores it creates (what kubernetes-external-secrets read
	// from its deployment: a region, a Vault address, ...), by name such
	// as "aws.region" or "vault.server"; see docs/migrate.md.
	KESToESO map[string]string `yaml:"kesToEso" json:"kesToEso,omitempty"`
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
