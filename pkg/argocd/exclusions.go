package argocd

import (
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// CoreExcludedResources are the kinds Argo CD's code always leaves out,
// whatever argocd-cm says (util/settings/resources_filter.go).
var CoreExcludedResources = []config.ResourceFilter{
	{APIGroups: []string{"events.k8s.io", "metrics.k8s.io"}},
	{APIGroups: []string{""}, Kinds: []string{"Event"}},
	{APIGroups: []string{"coordination.k8s.io"}, Kinds: []string{"Lease"}},
}

// DefaultResourceExclusions are the resource.exclusions of the argocd-cm
// Argo CD installs since 3.0 (manifests/base/config/argocd-cm.yaml):
// objects that controllers make and Git should not declare. Argo CD drops
// a rendered one from the desired state with only an
// ExcludedResourceWarning condition.
var DefaultResourceExclusions = []config.ResourceFilter{
	{APIGroups: []string{"", "discovery.k8s.io"}, Kinds: []string{"Endpoints", "EndpointSlice"}},
	{APIGroups: []string{"coordination.k8s.io"}, Kinds: []string{"Lease"}},
	{
		APIGroups: []string{"authentication.k8s.io", "authorization.k8s.io"},
		Kinds: []string{
			"SelfSubjectReview",
			"TokenReview",
			"LocalSubjectAccessReview",
			"SelfSubjectAccessReview",
			"SelfSubjectRulesReview",
			"SubjectAccessReview",
		},
	},
	{APIGroups: []string{"certificates.k8s.io"}, Kinds: []string{"CertificateSigningRequest"}},
	{APIGroups: []string{"cert-manager.io"}, Kinds: []string{"CertificateRequest"}},
	{APIGroups: []string{"cilium.io"}, Kinds: []string{"CiliumIdentity", "CiliumEndpoint", "CiliumEndpointSlice"}},
	{
		APIGroups: []string{"kyverno.io", "reports.kyverno.io", "wgpolicyk8s.io"},
		Kinds: []string{
			"PolicyReport",
			"ClusterPolicyReport",
			"EphemeralReport",
			"ClusterEphemeralReport",
			"AdmissionReport",
			"ClusterAdmissionReport",
			"BackgroundScanReport",
			"ClusterBackgroundScanReport",
			"UpdateRequest",
		},
	},
}

// Exclusion says why Argo CD leaves a kind out of a cluster's
// Applications: the filter that matches it, and whether that filter is
// Argo CD's built-in one (Core) or argocd-cm's.
type Exclusion struct {
	Filter config.ResourceFilter
	Core   bool
}

// Excluded reports whether Argo CD, configured as cfg says
// (argocd.resourceExclusions, else DefaultResourceExclusions), leaves
// objects of group and kind out of cluster cl's Applications. Argo CD
// matches a filter's clusters against the cluster's server URL; a cluster
// known by name only is matched by its name.
func Excluded(cfg *config.Config, cl *layout.Cluster, group, kind string) (Exclusion, bool) {
	server := ""
	if cl != nil {
		server = cl.Destination.Server
		if server == "" {
			server = cl.Destination.Name
		}
	}
	for _, f := range CoreExcludedResources {
		if matchFilter(f, group, kind, server) {
			return Exclusion{Filter: f, Core: true}, true
		}
	}
	filters := cfg.ArgoCD.ResourceExclusions
	if filters == nil {
		filters = DefaultResourceExclusions
	}
	for _, f := range filters {
		if matchFilter(f, group, kind, server) {
			return Exclusion{Filter: f}, true
		}
	}
	return Exclusion{}, false
}

// matchFilter is Argo CD's FilteredResource.Match: groups and clusters by
// glob, kinds exactly or "*", an empty list matching all.
func matchFilter(f config.ResourceFilter, group, kind, cluster string) bool {
	return matchAny(f.APIGroups, group, match) && matchAny(
		f.Kinds,
		kind,
		func(p, s string) bool { return p == "*" || p == s },
	) && matchAny(f.Clusters, cluster, match)
}

func matchAny(patterns []string, s string, match func(p, s string) bool) bool {
	for _, p := range patterns {
		if match(p, s) {
			return true
		}
	}
	return len(patterns) == 0
}
