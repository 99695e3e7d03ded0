package argocd

import (
	"fmt"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
)

// Plan is what generate makes for one cluster, as a model to ask
// questions of: its AppProjects, and for each object a target renders, the
// Application and project that deploy it. Lint uses it to report before
// merge what Argo CD would refuse at sync time.
type Plan struct {
	cluster  *layout.Cluster
	tiers    *Tiers
	gen      *generator
	projects map[string]*AppProject
}

// NewPlan returns the plan of cluster, with the scope of custom kinds from
// crds. Unlike Generate it needs no repository URL and accepts a layout
// with errors: it is a model, nothing is written.
func NewPlan(repo *layout.Repo, crds *manifest.CRDs, cluster string) (*Plan, error) {
	cl, ok := repo.Cluster(cluster)
	if !ok {
		return nil, fmt.Errorf("no cluster %q", cluster)
	}
	g := &generator{repo: repo, cfg: &repo.Config, set: SettingsOf(&repo.Config), tiers: NewTiers(repo, crds)}
	files, err := g.cluster(cl)
	if err != nil {
		return nil, err
	}
	p := &Plan{cluster: cl, tiers: g.tiers, gen: g, projects: map[string]*AppProject{}}
	for _, f := range files {
		if ap, ok := f.Object.(*AppProject); ok {
			p.projects[ap.Metadata.Name] = ap
		}
	}
	return p, nil
}

// Project returns the project called name.
func (p *Plan) Project(name string) (*AppProject, bool) {
	ap, ok := p.projects[name]
	return ap, ok
}

// Placement is where Argo CD deploys an object a target renders.
type Placement struct {
	// Tier is the Argo CD tier that owns the object.
	Tier config.ArgoTier
	// Application and Project are the names of the Application that
	// deploys it and of its AppProject.
	Application, Project string
	// Namespace is the namespace the object lands in, "" for a
	// cluster-scoped kind.
	Namespace string
}

// Place says which tier, Application and project deploy object o of target
// t: a cluster-tier target's objects go to its Application in the cluster
// project; an application namespace's security kinds to "<ns>-security" in
// the namespaces project, the rest to "<ns>" in its own project (a
// cluster-scoped kind included: that project refuses it).
func (p *Plan) Place(t *layout.Target, o *manifest.Object) Placement {
	pl := Placement{Namespace: o.NamespaceIn(t.Namespace)}
	if p.ClusterScoped(o.Group(), o.Kind) {
		pl.Namespace = ""
	}
	if t.Tier == config.TierCluster {
		pl.Tier, pl.Application, pl.Project = config.ArgoTierCluster, t.Namespace, string(config.ArgoTierCluster)
		return pl
	}
	if tier, err := p.tiers.TierOf(o.APIVersion, o.Kind); err == nil && tier == config.ArgoTierNamespaces {
		pl.Tier, pl.Application, pl.Project = config.ArgoTierNamespaces, t.Namespace+SecuritySuffix, string(config.ArgoTierNamespaces)
		return pl
	}
	pl.Tier, pl.Application, pl.Project = config.ArgoTierApplication, t.Namespace, t.Namespace
	return pl
}

// NamespaceLabels returns the labels of the Namespace the plugin writes
// for an application namespace (see Tiers.NamespaceLabels).
func (p *Plan) NamespaceLabels(ns string) (map[string]string, bool) {
	return p.tiers.NamespaceLabels(ns)
}

// ClusterScoped reports whether group/kind is cluster-scoped: a built-in
// cluster-scoped kind, or a custom kind whose CRD says so.
func (p *Plan) ClusterScoped(group, kind string) bool {
	return p.tiers.clusterScoped[group+"/"+kind]
}

// Check asks the project that deploys object o of target t whether it
// permits it: nil, or a *Refusal naming the project, the tier and the rule
// that refuses it.
func (p *Plan) Check(t *layout.Target, o *manifest.Object) (Placement, error) {
	pl := p.Place(t, o)
	proj, ok := p.projects[pl.Project]
	if !ok {
		return pl, &Refusal{Project: pl.Project, Reason: "is not generated for this cluster"}
	}
	dest := p.gen.dest(p.cluster, t.Namespace)
	dest.Namespace = ""
	if err := proj.Permits(GroupKind{Group: o.Group(), Kind: o.Kind}, pl.Namespace, dest); err != nil {
		return pl, err
	}
	return pl, nil
}

// TierHint says what to do about an object its tier's project refuses.
func (pl Placement) TierHint(kind string) string {
	switch {
	case pl.Namespace == "" && pl.Tier != config.ArgoTierCluster:
		return "move it to a cluster-tier namespace's chart (namespaces.<ns>.tier: cluster), which may create cluster-scoped kinds"
	case pl.Tier == config.ArgoTierApplication:
		return fmt.Sprintf("render it into the application's own namespace, or, if %s belongs to the security tier, add it to argocd.securityKinds", kind)
	}
	return "render it into the target's own namespace, or move it to the tier that owns it"
}

// String is "tier <tier>, Application <app>, AppProject <project>".
func (pl Placement) String() string {
	return strings.Join([]string{"tier " + string(pl.Tier), "Application " + pl.Application, "AppProject " + pl.Project}, ", ")
}
