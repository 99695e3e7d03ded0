package config

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	yaml "go.yaml.in/yaml/v3"
)

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
	// Values list, by namespace name or pattern (path.Match), the values
	// files of the targets of every cluster, in merge order, instead of
	// the files the layout's patterns find; paths may hold {cluster} and
	// {namespace}.
	Values map[string]ValuesFiles `yaml:"values" json:"values,omitempty"`
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
	// Labels are the labels of the cluster's Secret in the Argo CD that
	// reads the repository's ApplicationSets: what a clusters generator's
	// selector matches and passes on as metadata.labels.
	Labels map[string]string `yaml:"labels" json:"labels,omitempty"`
	// AdmissionPolicies are files and folders (relative to the repository
	// root) of ValidatingAdmissionPolicies and bindings the cluster has
	// besides those the repository deploys to it, with the params they
	// name: what the admission-policy lint rule puts objects to.
	AdmissionPolicies []PathAt `yaml:"admissionPolicies" json:"admissionPolicies,omitempty"`
	// FeatureGates are the cluster's API server feature gates that differ
	// from their defaults, as its --feature-gates sets them; admission
	// reads MutatingAdmissionPolicy (on by default from Kubernetes 1.36,
	// off before).
	FeatureGates map[string]bool `yaml:"featureGates" json:"featureGates,omitempty"`
	// Values list, by namespace, the values files of the cluster's
	// targets in merge order (see ClusterDefaults.Values); a namespace
	// listed here is not looked up in the defaults.
	Values map[string]ValuesFiles `yaml:"values" json:"values,omitempty"`
}

// Destination is an Argo CD application destination.
type Destination struct {
	// Server is the Kubernetes API URL. Default https://kubernetes.default.svc.
	Server string `yaml:"server" json:"server,omitempty"`
	// Name is the Argo CD cluster name; used instead of Server when set.
	Name string `yaml:"name" json:"name,omitempty"`
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

// validateClusters checks the defaults and clusters sections.
func validateClusters(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
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
	return nil
}
