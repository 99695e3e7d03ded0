package argocd

import (
	"slices"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// project builds an AppProject; tierKey selects the tier's sync windows
// (the application projects use the "application" tier's).
// projectSpec is what an AppProject permits, and to whom.
type projectSpec struct {
	name, description string
	dests             []ApplicationDestination
	// clusterWhite, nsWhite and nsBlack are its resource lists.
	clusterWhite, nsWhite, nsBlack []GroupKind
	// owners are the SSO groups that may sync besides the SRE groups.
	owners []string
}

func (g *generator) project(cl *layout.Cluster, ps projectSpec) *AppProject {
	name, owners := ps.name, ps.owners
	tier := config.ArgoTier(name)
	if tier != config.ArgoTierCluster && tier != config.ArgoTierNamespaces {
		tier = config.ArgoTierApplication
	}
	p := &AppProject{
		TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "AppProject"},
		Metadata: g.meta(cl, name, tier),
		Spec: AppProjectSpec{
			Description:                ps.description,
			SourceRepos:                []string{g.cfg.Git.RepoURL},
			Destinations:               ps.dests,
			ClusterResourceWhitelist:   ps.clusterWhite,
			NamespaceResourceWhitelist: ps.nsWhite,
			NamespaceResourceBlacklist: ps.nsBlack,
			Roles: []ProjectRole{g.role(name, "sre", "Site reliability engineers: may sync every application of the project and read its "+
				"logs.", g.cfg.ArgoCD.SREGroups, nil)},
		},
	}
	if len(owners) > 0 {
		p.Spec.Roles = append(
			p.Spec.Roles,
			g.role(name, "owners", "The teams that own the namespace: may sync its application and read its logs.", owners, g.cfg.ArgoCD.OwnerActions),
		)
	}
	for _, w := range g.cfg.ArgoCD.Tiers[tier].SyncWindows {
		p.Spec.SyncWindows = append(p.Spec.SyncWindows, SyncWindow(w))
	}
	return p
}

// role builds a project role: its groups may see and sync the project's
// applications and read their pods' logs (which Argo CD enforces since
// 3.0), and take actions (config.OwnerActionRE) on their resources.
func (g *generator) role(project, name, description string, groups, actions []string) ProjectRole {
	sub := "proj:" + project + ":" + name
	policies := []string{
		"p, " + sub + ", applications, get, " + project + "/*, allow",
		"p, " + sub + ", applications, sync, " + project + "/*, allow",
	}
	for _, act := range actions {
		policies = append(policies, "p, "+sub+", applications, "+act+", "+project+"/*, allow")
	}
	policies = append(policies, "p, "+sub+", logs, get, "+project+"/*, allow")
	return ProjectRole{
		Name:        name,
		Description: description,
		Groups:      slices.Clone(groups),
		Policies:    policies,
	}
}
