package config

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// HydrateConfig configures repotool hydrate.
type HydrateConfig struct {
	// Secrets is how hydrate writes Secrets: "refuse" (the default: a
	// target that renders one fails), "sops" (encrypted for the
	// .sops.yaml rule of the manifest's path) or "sealed-secrets" (a
	// SealedSecret for the cluster's certificate). See docs/hydrate.md.
	Secrets SecretsMode `yaml:"secrets" json:"secrets,omitempty"`
	// Clusters overrides Secrets per cluster, by cluster folder name, and
	// names the cluster's sealed-secrets certificate.
	Clusters map[string]HydrateCluster `yaml:"clusters" json:"clusters,omitempty"`
}

// HydrateCluster is one cluster's hydrate settings.
type HydrateCluster struct {
	Secrets SecretsMode `yaml:"secrets" json:"secrets,omitempty"`
	// Certificate is the sealed-secrets controller's public certificate
	// (PEM, as kubeseal --fetch-cert prints it), relative to the
	// repository's root. Default: <the cluster's folder>/sealed-secrets.pem;
	// a cluster without a folder must name one.
	Certificate string `yaml:"certificate" json:"certificate,omitempty"`
}

// SecretsMode is how hydrate writes a cluster's Secrets, and the repotool
// plugin prints them as the Source Hydrator's dry source: the one type
// config, hydrate and argocd share.
type SecretsMode string

const (
	// SecretsRefuse fails a target whose rendering holds a Secret: the
	// default.
	SecretsRefuse SecretsMode = "refuse"
	// SecretsSOPS writes each Secret with its data and stringData
	// SOPS-encrypted, for the recipients of the repository's .sops.yaml
	// creation rule that matches the manifest's path in the output
	// (<cluster>/<namespace>/manifest.yaml): what Flux's
	// kustomize-controller and KSOPS decrypt in the cluster.
	SecretsSOPS SecretsMode = "sops"
	// SecretsSealed writes each Secret as a Bitnami SealedSecret
	// (bitnami.com/v1alpha1), strict scope, for the cluster's controller
	// certificate: what the sealed-secrets controller unseals.
	SecretsSealed SecretsMode = "sealed-secrets"
)

// HydrateSecretsModes are the values hydrate.secrets takes.
var HydrateSecretsModes = []SecretsMode{SecretsRefuse, SecretsSOPS, SecretsSealed}

// ParseSecretsMode is the mode s names ("" is SecretsRefuse), or an error
// that lists the modes.
func ParseSecretsMode(s string) (SecretsMode, error) {
	if s == "" {
		return SecretsRefuse, nil
	}
	if m := SecretsMode(s); slices.Contains(HydrateSecretsModes, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown secrets mode %q: use %q, %q or %q", s, SecretsRefuse, SecretsSOPS, SecretsSealed)
}

// SealedSecretsCertificate is the file name of a cluster's sealed-secrets
// certificate in its folder, when hydrate.clusters.<c>.certificate does
// not name another.
const SealedSecretsCertificate = "sealed-secrets.pem"

// CertificateFor is the repository path of the sealed-secrets
// certificate of cluster, whose folder is dir: "" when the cluster has no
// folder (layout.targets names {namespace} before {cluster}) and names no
// certificate, for then no file is the cluster's.
func (h HydrateConfig) CertificateFor(cluster, dir string) string {
	if c := h.Clusters[cluster].Certificate; c != "" {
		return path.Clean(c)
	}
	if dir == "" {
		return ""
	}
	return path.Join(dir, SealedSecretsCertificate)
}

// SecretsFor is how hydrate writes the Secrets of cluster: its own
// setting, else the default, else "refuse".
func (h HydrateConfig) SecretsFor(cluster string) SecretsMode {
	if c, ok := h.Clusters[cluster]; ok && c.Secrets != "" {
		return c.Secrets
	}
	if h.Secrets != "" {
		return h.Secrets
	}
	return SecretsRefuse
}

func validateHydrate(file string, root *yaml.Node, cfg *Config) error {
	check := func(v SecretsMode, at ...string) error {
		if _, err := ParseSecretsMode(string(v)); err != nil {
			return &Error{File: file, Line: yamlpos.Line(root, 1, at...), Message: fmt.Sprintf("%q is not a secrets mode of hydrate: use %s, %s, %s",
				v, SecretsRefuse, SecretsSOPS, SecretsSealed)}
		}
		return nil
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
