package argocd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
)

// DefaultSecurityKinds are the kinds the "namespaces" tier owns, as
// group/Kind ("" group for the core API): the Namespace itself, secrets,
// ingress, RBAC inside the namespace, network policy and quotas.
var DefaultSecurityKinds = []string{
	"/LimitRange",
	"/Namespace",
	"/ResourceQuota",
	"/Secret",
	"/ServiceAccount",
	"external-secrets.io/ExternalSecret",
	"networking.k8s.io/Ingress",
	"networking.k8s.io/NetworkPolicy",
	"rbac.authorization.k8s.io/Role",
	"rbac.authorization.k8s.io/RoleBinding",
}

// builtinClusterScoped are the cluster-scoped built-in kinds.
var builtinClusterScoped = []string{
	"/Namespace", "/Node", "/PersistentVolume", "/ComponentStatus",
	"admissionregistration.k8s.io/MutatingWebhookConfiguration",
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration",
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy",
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
	"apiextensions.k8s.io/CustomResourceDefinition",
	"apiregistration.k8s.io/APIService",
	"certificates.k8s.io/CertificateSigningRequest",
	"flowcontrol.apiserver.k8s.io/FlowSchema",
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
	"networking.k8s.io/IngressClass",
	"networking.k8s.io/IPAddress",
	"networking.k8s.io/ServiceCIDR",
	"node.k8s.io/RuntimeClass",
	"rbac.authorization.k8s.io/ClusterRole",
	"rbac.authorization.k8s.io/ClusterRoleBinding",
	"resource.k8s.io/DeviceClass",
	"resource.k8s.io/ResourceSlice",
	"scheduling.k8s.io/PriorityClass",
	"storage.k8s.io/CSIDriver",
	"storage.k8s.io/CSINode",
	"storage.k8s.io/StorageClass",
	"storage.k8s.io/VolumeAttachment",
	"storage.k8s.io/VolumeAttributesClass",
}

// SecuritySuffix ends the name of an application namespace's
// namespaces-tier Application (<namespace>-security), and of its folder in
// a hydrated branch.
const SecuritySuffix = "-security"

// Tiers decides which responsibility tier owns a rendered object.
type Tiers struct {
	security      map[string]bool
	clusterScoped map[string]bool
	// labels are the namespaces' labels declared in repotool.yaml.
	labels map[string]map[string]string
}

// NewTiers builds the tier rules for repo: the security kinds from
// repotool.yaml (or DefaultSecurityKinds), and the cluster-scoped kinds:
// built-in, and every CRD in crds with scope Cluster (see ChartCRDs, and
// lint's inventory, which adds the CRDs charts render from templates).
func NewTiers(repo *layout.Repo, crds *manifest.CRDs) *Tiers {
	t := &Tiers{security: map[string]bool{}, clusterScoped: map[string]bool{}, labels: map[string]map[string]string{}}
	for ns, c := range repo.Config.Namespaces {
		t.labels[ns] = c.Labels
	}
	kinds := repo.Config.ArgoCD.SecurityKinds
	if len(kinds) == 0 {
		kinds = DefaultSecurityKinds
	}
	for _, k := range kinds {
		t.security[k] = true
	}
	for _, k := range builtinClusterScoped {
		t.clusterScoped[k] = true
	}
	for _, c := range crds.All() {
		if c.Scope == "Cluster" {
			t.clusterScoped[c.Group+"/"+c.Kind] = true
		}
	}
	return t
}

// ChartCRDs returns the CRDs that repo's namespace charts install from
// their crds/ folders (their subcharts', packaged or not, included),
// without rendering. It fails on a file it cannot read or parse.
func ChartCRDs(repo *layout.Repo) ([]*manifest.CRD, error) {
	var dirs []string
	for _, ns := range repo.Namespaces {
		if ns.Chart != nil {
			dirs = append(dirs, ns.Chart.Dir)
		}
	}
	slices.Sort(dirs)
	return manifest.ReadChartCRDs(repo.FS, slices.Compact(dirs)...) // a shared chart once
}

// SecurityKinds returns the security kinds, sorted.
func (t *Tiers) SecurityKinds() []GroupKind { return groupKinds(t.security) }

func groupKinds(m map[string]bool) []GroupKind {
	var out []GroupKind
	for k := range m {
		g, kind, _ := strings.Cut(k, "/")
		out = append(out, GroupKind{Group: g, Kind: kind})
	}
	slices.SortFunc(out, func(a, b GroupKind) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return out
}

func groupKindOf(apiVersion, kind string) string {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group = ""
	}
	return group + "/" + kind
}

// TierOf returns the tier that owns an object rendered for an application
// namespace: "namespaces" for the security kinds, "application" for other
// namespaced kinds, and an error for cluster-scoped kinds, which only the
// cluster tier may create.
func (t *Tiers) TierOf(apiVersion, kind string) (config.ArgoTier, error) {
	gk := groupKindOf(apiVersion, kind)
	if gk == "bitnami.com/SealedSecret" && !t.security[gk] && t.security["/Secret"] {
		gk = "/Secret" // a Secret sealed (hydrate --secrets sealed-secrets) goes where the Secret goes
	}
	switch {
	case t.security[gk]:
		return config.ArgoTierNamespaces, nil
	case t.clusterScoped[gk]:
		return "", fmt.Errorf("%s %s is cluster-scoped: only the cluster tier may create it; move it to a cluster-tier namespace's chart", apiVersion, kind)
	}
	return config.ArgoTierApplication, nil
}

// Split returns the part of a target's rendering that tier owns, as a YAML
// stream in the rendering's order: stream is the whole rendering (what a
// cluster-tier target owns) and objects its documents. For the namespaces
// tier the stream starts with the Namespace object when the chart does not
// render one. It fails when an application namespace's chart renders a
// cluster-scoped object, which no application tier may hold.
func (t *Tiers) Split(target layout.Target, stream []byte, objects []manifest.Object, tier config.ArgoTier) ([]byte, error) {
	switch tier {
	case config.ArgoTierCluster, config.ArgoTierNamespaces, config.ArgoTierApplication:
	default:
		return nil, fmt.Errorf("unknown tier %q: use %s, %s or %s", tier, config.ArgoTierCluster, config.ArgoTierNamespaces, config.ArgoTierApplication)
	}
	if target.Tier == config.TierCluster {
		if tier != config.ArgoTierCluster {
			return nil, fmt.Errorf("%s is a cluster-tier namespace: render it with tier %s, not %s", target.Name(), config.ArgoTierCluster, tier)
		}
		return stream, nil
	}
	if tier == config.ArgoTierCluster {
		return nil, fmt.Errorf(
			"%s is an application namespace: render it with tier %s or %s, not %s",
			target.Name(),
			config.ArgoTierNamespaces,
			config.ArgoTierApplication,
			tier,
		)
	}
	var out []byte
	hasNamespace := false
	for i := range objects {
		o := &objects[i]
		owner, err := t.TierOf(o.APIVersion, o.Kind)
		if err != nil {
			return nil, fmt.Errorf("%s renders %s (template %s): %w", target.Name(), o.ID(), o.Template, err)
		}
		if owner != tier {
			continue
		}
		hasNamespace = hasNamespace || (o.Kind == "Namespace" && o.APIVersion == "v1")
		out = manifest.Append(out, *o)
	}
	if tier == config.ArgoTierNamespaces && !hasNamespace && t.security["/Namespace"] {
		labels, _ := t.NamespaceLabels(target.Namespace)
		var b strings.Builder
		fmt.Fprintf(&b, "---\n# Source: repotool (the target's namespace)\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n", target.Namespace)
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			if k == managedBy {
				fmt.Fprintf(&b, "    %s: %s\n", k, labels[k])
			} else {
				fmt.Fprintf(&b, "    %q: %q\n", k, labels[k])
			}
		}
		return append([]byte(b.String()), out...), nil
	}
	return out, nil
}

// managedBy is the label of the Namespace objects repotool writes.
const managedBy = "app.kubernetes.io/managed-by"

// NamespaceLabels returns the labels of the Namespace object the plugin
// writes for an application namespace that renders none (the namespaces
// tier owns Namespaces): repotool.yaml's labels for it and
// app.kubernetes.io/managed-by: repotool. ok is false when the plugin
// writes none.
func (t *Tiers) NamespaceLabels(ns string) (labels map[string]string, ok bool) {
	labels = map[string]string{managedBy: "repotool"}
	for k, v := range t.labels[ns] {
		if k != managedBy {
			labels[k] = v
		}
	}
	return labels, t.security["/Namespace"]
}
