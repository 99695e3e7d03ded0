package config

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// HydrateConfig configures repotool hydrate.
type HydrateConfig struct {
	// Secrets is how hydrate writes Secrets: "refuse" (the default: a
	// target that renders one fails), "sops" (encrypted for the
	// .sops.yaml rule of the manifest's path) or "sealed-secrets" (a
	// SealedSecret for the cluster's certificate). See docs/hydrate.md.
	Secrets string `yaml:"secrets" json:"secrets,omitempty"`
	// Clusters overrides Secrets per cluster, by cluster folder name, and
	// names the cluster's sealed-secrets certificate.
	Clusters map[string]HydrateCluster `yaml:"clusters" json:"clusters,omitempty"`
}

// HydrateCluster is one cluster's hydrate settings.
type HydrateCluster struct {
	Secrets string `yaml:"secrets" json:"secrets,omitempty"`
	// Certificate is the sealed-secrets controller's public certificate
	// (PEM, as kubeseal --fetch-cert prints it), relative to the
	// repository's root. Default: <the cluster's folder>/sealed-secrets.pem.
	Certificate string `yaml:"certificate" json:"certificate,omitempty"`
}

// HydrateSecretsModes are the values hydrate.secrets takes.
var HydrateSecretsModes = []string{"refuse", "sops", "sealed-secrets"}

// SealedSecretsCertificate is the file name of a cluster's sealed-secrets
// certificate in its folder, when hydrate.clusters.<c>.certificate does
// not name another.
const SealedSecretsCertificate = "sealed-secrets.pem"

// CertificateFor is the repository path of the sealed-secrets
// certificate of cluster, whose folder is dir.
func (h HydrateConfig) CertificateFor(cluster, dir string) string {
	if c := h.Clusters[cluster].Certificate; c != "" {
		return path.Clean(c)
	}
	return path.Join(dir, SealedSecretsCertificate)
}

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
	check := func(v string, at ...string) error {
		if v == "" || slices.Contains(HydrateSecretsModes, v) {
			return nil
		}
		return &Error{
			File:    file,
			Line:    yamlpos.Line(root, 1, at...),
			Message: fmt.Sprintf("%q is not a secrets mode of hydrate: use %s", v, strings.Join(HydrateSecretsModes, ", ")),
		}
	}
	if err := check(cfg.Hydrate.Secrets, "hydrate", "secrets"); err != nil {
		return err
	}
	for _, c := range slices.Sorted(maps.Keys(cfg.Hydrate.Clusters)) {
		if err := check(cfg.Hydrate.Clusters[c].Secrets, "hydrate", "clusters", c, "secrets"); err != nil {
			return err
		}
		if cert := cfg.Hydrate.Clusters[c].Certificate; cert != "" && (path.IsAbs(cert) || !fs.ValidPath(path.Clean(cert))) {
			return &Error{File: file, Line: yamlpos.Line(root, 1, "hydrate", "clusters", c, "certificate"),
				Message: fmt.Sprintf("the certificate %q is not a path inside the repository: give it relative to the repository's root, with slashes", cert)}
		}
	}
	return nil
}
