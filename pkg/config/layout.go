package config

import (
	"fmt"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// LayoutConfig overrides the folder names and file patterns, so that
// repositories with a slightly different layout can adopt repotool.
type LayoutConfig struct {
	// NamespacesDir holds one chart folder per namespace. Default "namespaces".
	NamespacesDir string `yaml:"namespacesDir" json:"namespacesDir"`
	// ClustersDir holds one folder per cluster. Default "clusters".
	ClustersDir string `yaml:"clustersDir" json:"clustersDir"`
	// Targets, when set, finds the targets' folders by a path template
	// instead of <clustersDir>/<cluster>/<namespace>: slash-separated
	// segments, each a folder name or a part in braces, {cluster} and
	// {namespace} once each, other parts ({team}, {env}) matching any
	// folder. See TargetTemplate.
	Targets string `yaml:"targets" json:"targets,omitempty"`
	// CommonValues are the file-name patterns (path.Match syntax) of the values
	// files in a namespace folder that every cluster shares. The chart's own
	// values.yaml is never one of them: Helm loads it itself.
	// Default ["*values*.yaml", "*values*.yml"].
	CommonValues []string `yaml:"commonValues" json:"commonValues"`
	// ClusterValues are the file-name patterns of the values files in
	// clusters/<cluster>/<namespace>/. Default ["*values*.yaml", "*values*.yml"].
	ClusterValues []string `yaml:"clusterValues" json:"clusterValues"`
	// ClusterWideValues are the file-name patterns of the values files
	// directly in clusters/<cluster>/ that every target of the cluster
	// reads, after the common values and before its own. Default none: a
	// YAML file there is reported and not read.
	ClusterWideValues []string `yaml:"clusterWideValues" json:"clusterWideValues,omitempty"`
	// SecretSuffixes mark SOPS-encrypted values files.
	// Default [".secret.yaml", ".secret.yml"].
	SecretSuffixes []string `yaml:"secretSuffixes" json:"secretSuffixes"`
}

// ApplyDefaults restores the defaults of layout settings set explicitly
// empty.
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

// validateLayout checks the layout section.
func validateLayout(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
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
	}{{"commonValues", l.CommonValues}, {"clusterValues", l.ClusterValues}, {"clusterWideValues", l.ClusterWideValues}} {
		for _, p := range ps.pats {
			if _, err := path.Match(p, ""); err != nil || strings.Contains(p, "/") {
				return bad(fmt.Sprintf("layout.%s: %q is not a file-name pattern; use path.Match syntax without '/', like \"*values*.yaml\"", ps.key, p), "layout", ps.key)
			}
		}
	}
	if l.Targets != "" {
		if _, err := ParseTargetTemplate(l.Targets); err != nil {
			return bad("layout.targets: "+err.Error(), "layout", "targets")
		}
	}
	for _, s := range l.SecretSuffixes {
		if !strings.HasPrefix(s, ".") || strings.Contains(s, "/") {
			return bad(fmt.Sprintf("layout.secretSuffixes: %q must be a file-name suffix starting with '.', like \".secret.yaml\"", s), "layout", "secretSuffixes")
		}
	}
	return nil
}
