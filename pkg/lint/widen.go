package lint

import (
	"context"
	"slices"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// clusterWide are the kinds (group/kind) whose objects apply to every
// object of their cluster: admission policies and their bindings, which
// admit each object; CRDs, which the schema of each custom resource comes
// from; Namespaces, whose labels policies select by.
var clusterWide = []string{
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy", "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
	"admissionregistration.k8s.io/MutatingAdmissionPolicy", "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
	"apiextensions.k8s.io/CustomResourceDefinition", "/Namespace",
}

// widened is names (Options.Targets, a change's targets: lint
// --changed-since) with every target of each cluster where one of
// targets, the named ones, renders an object of a clusterWide kind: a
// change to a policy, a CRD or a Namespace can change what the checks of
// any of the cluster's objects find (as diff --as-admitted widens).
// Rendered with r, which the run's renderer then shares.
func widened(ctx context.Context, r *render.Renderer, repo *layout.Repo, targets []layout.Target, names []string) []string {
	clusters := map[string]bool{}
	r.RenderEach(ctx, targets, func(_ int, res *render.Result) {
		for i := range res.Objects {
			if o := &res.Objects[i]; slices.Contains(clusterWide, o.Group()+"/"+o.Kind) {
				clusters[res.Target.Cluster] = true
				return
			}
		}
	})
	if len(clusters) == 0 {
		return names
	}
	out := slices.Clone(names)
	for _, t := range repo.Targets {
		if clusters[t.Cluster] {
			out = append(out, t.Name())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
