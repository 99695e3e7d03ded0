package config

import (
	"fmt"
	"maps"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

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

// NamespaceConfig holds one namespace's settings.
type NamespaceConfig struct {
	// Tier is "application" (default) or "cluster".
	Tier Tier `yaml:"tier" json:"tier,omitempty"`
	// Chart is the folder of the namespace's chart, relative to the
	// repository root, when it is not the namespace's own folder: a chart
	// several namespaces deploy.
	Chart PathAt `yaml:"chart" json:"chart,omitzero"`
	// Labels are the namespace's labels: the Namespace object repotool
	// writes for an application namespace carries them, and the
	// admission-policy rule matches namespace selectors against them (for a
	// cluster-tier namespace, as labels the namespace has in the cluster).
	Labels map[string]string `yaml:"labels" json:"labels,omitempty"`
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
	// IgnoreDifferences are added to argocd.ignoreDifferences for the
	// namespace's Applications.
	IgnoreDifferences []IgnoreDifference `yaml:"ignoreDifferences" json:"ignoreDifferences,omitempty"`
}

// NamespaceTier returns a namespace's tier (TierApplication by default).
func (c *Config) NamespaceTier(ns string) Tier {
	if t := c.Namespaces[ns].Tier; t != "" {
		return t
	}
	return TierApplication
}

// validateNamespaces checks the namespaces section's names and tiers (its
// Argo CD settings are checked by validateArgoCD).
func validateNamespaces(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
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
	return nil
}
