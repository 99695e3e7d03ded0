package config

import (
	"fmt"
	"maps"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// HydrateConfig configures repotool hydrate.
type HydrateConfig struct {
	// Secrets is how hydrate writes Secrets: "refuse" (the default: a
	// target that renders one fails) or "sops" (encrypted for the
	// .sops.yaml rule of the manifest's path). See docs/hydrate.md.
	Secrets string `yaml:"secrets" json:"secrets,omitempty"`
	// Clusters overrides Secrets per cluster, by cluster folder name.
	Clusters map[string]HydrateCluster `yaml:"clusters" json:"clusters,omitempty"`
}

// HydrateCluster is one cluster's hydrate settings.
type HydrateCluster struct {
	Secrets string `yaml:"secrets" json:"secrets,omitempty"`
}

// HydrateSecretsModes are the values hydrate.secrets takes.
var HydrateSecretsModes = []string{"refuse", "sops"}

// SecretsFor is how hydrate writes the Secrets of cluster: its own
// setting, else the default, else "refuse".
func (h HydrateConfig) SecretsFor(cluster string) string {
	if c, ok := h.Clusters[cluster]; ok && c.Secrets != "" {
		return c.Secrets
	}
	if h.Secrets != "" {
		return h.Secrets
	}
	return "refuse"
}

func validateHydrate(file string, root *yaml.Node, cfg *Config) error {
	check := func(v string, path ...string) error {
		if v == "" || slices.Contains(HydrateSecretsModes, v) {
			return nil
		}
		return &Error{File: file, Line: yamlpos.Line(root, 1, path...), Message: fmt.Sprintf("%q is not a secrets mode of hydrate: use %q or %q", v, HydrateSecretsModes[0], HydrateSecretsModes[1])}
	}
	if err := check(cfg.Hydrate.Secrets, "hydrate", "secrets"); err != nil {
		return err
	}
	for _, c := range slices.Sorted(maps.Keys(cfg.Hydrate.Clusters)) {
		if err := check(cfg.Hydrate.Clusters[c].Secrets, "hydrate", "clusters", c, "secrets"); err != nil {
			return err
		}
	}
	return nil
}
