package lint

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/repotool/repotool/pkg/config"
)

// What the API server looks up while admitting a cluster's objects, as the
// admission rules see it: its namespaces with their labels, and the
// resource and scope of each kind.

// admissionNamespaces are the cluster's namespaces with the labels
// namespace selectors see: those of the Namespace objects it deploys (and
// the one the API server sets), of the Namespace repotool writes for an
// application namespace, and repotool.yaml's.
func (ac *admissionCheck) admissionNamespaces(v *clusterView) map[string]map[string]string {
	out := map[string]map[string]string{}
	apps := map[string]bool{}
	for _, res := range ac.results {
		if res.Target.Cluster == v.name && res.Target.Tier != config.TierCluster {
			apps[res.Target.Namespace] = true
		}
	}
	for ns, labels := range v.namespaces {
		l := map[string]string{}
		if v.plan != nil && apps[ns] && !v.rendersNamespace(ns) {
			if generated, ok := v.plan.NamespaceLabels(ns); ok {
				for k, x := range generated {
					l[k] = x
				}
			}
		}
		for k, x := range ac.repo.Repo.Config.NamespaceLabels(ns) {
			l[k] = x
		}
		for k, x := range labels {
			l[k] = x
		}
		out[ns] = l
	}
	return out
}

// rendersNamespace reports whether the cluster's renderings hold the
// Namespace ns.
func (v *clusterView) rendersNamespace(ns string) bool {
	return slices.ContainsFunc(v.objs, func(p placed) bool {
		return p.o.Kind == "Namespace" && p.o.APIVersion == "v1" && p.o.Name == ns
	})
}

// resourceOf names a kind's resource and scope as the cluster's discovery
// would: a CRD the repository installs, else a built-in kind.
func (ac *admissionCheck) resourceOf(v *clusterView) func(schema.GroupVersionKind) (string, bool, bool) {
	return func(gvk schema.GroupVersionKind) (string, bool, bool) {
		if c, ok := ac.repo.CRDs.Lookup(gvk.Group, gvk.Kind); ok {
			return c.Plural, c.Scope != "Cluster", true
		}
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		known := builtinKind(gvk)
		namespaced := v.plan == nil || !v.plan.ClusterScoped(gvk.Group, gvk.Kind)
		return plural.Resource, namespaced, known
	}
}
