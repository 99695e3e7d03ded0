package argocd

import (
	"cmp"
	"path"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

func (g *generator) application(cl *layout.Cluster, name, ns, project string, tier config.ArgoTier) *Application {
	t, _ := g.repo.Target(cl.Name, ns)
	app := &Application{
		TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "Application"},
		Metadata: g.meta(cl, name, tier),
		Spec: ApplicationSpec{
			Project: project,
			Source: &ApplicationSource{
				RepoURL:        g.cfg.Git.RepoURL,
				TargetRevision: g.revision(),
				Path:           g.gitPath(t.Dir),
				Plugin: &ApplicationSourcePlugin{Name: g.set.PluginName, Env: []EnvEntry{
					{Name: "CLUSTER", Value: cl.Name},
					{Name: "NAMESPACE", Value: ns},
					{Name: "TIER", Value: string(tier)},
				}},
			},
			Destination: g.dest(cl, ns),
			SyncPolicy:  g.syncPolicy(tier, ns),
		},
	}
	app.Metadata.Finalizers = []string{Finalizer}
	app.Metadata.Annotations = map[string]string{ManifestGeneratePaths: g.refreshPaths(t)}
	for _, n := range g.cfg.Namespaces[ns].Notifications {
		app.Metadata.Annotations["notifications.argoproj.io/subscribe."+n.Trigger+"."+n.Service] = strings.Join(n.Recipients, ";")
	}
	return app
}

// refreshPaths is the manifest-generate-paths annotation of a target's
// Applications: its inputs (layout's Repo.Inputs, which diff uses too), as
// absolute paths in the Git repository. Every tier of a target renders
// from the same inputs: the split between tiers depends on nothing else
// but repotool.yaml, which is one of them.
func (g *generator) refreshPaths(t *layout.Target) string {
	var paths []string
	for _, p := range g.repo.Inputs(t) {
		paths = append(paths, "/"+g.gitPath(p))
	}
	return strings.Join(paths, ";")
}

func (g *generator) root(cl *layout.Cluster) *Application {
	meta := g.meta(cl, RootName, config.ArgoTierCluster)
	// The root application deploys the files of its own folder, nothing
	// else.
	meta.Annotations = map[string]string{ManifestGeneratePaths: "."}
	return &Application{
		TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "Application"},
		Metadata: meta,
		Spec: ApplicationSpec{
			Project: string(config.ArgoTierCluster),
			Source: &ApplicationSource{
				RepoURL:        g.cfg.Git.RepoURL,
				TargetRevision: g.revision(),
				Path:           g.gitPath(path.Join(g.set.OutputDir, cl.Name)),
				Directory:      &ApplicationSourceDirectory{},
			},
			Destination: g.dest(cl, g.set.Namespace),
			SyncPolicy:  g.syncPolicy(config.ArgoTierCluster, ""),
		},
	}
}

// syncPolicy is the sync policy of an Application of tier for namespace
// ns ("" for the root application): the tier's settings, with the
// namespace's sync options and automated.enabled over them. The cluster
// tier creates its namespaces unless told otherwise.
func (g *generator) syncPolicy(tier config.ArgoTier, ns string) *SyncPolicy {
	tc := g.cfg.ArgoCD.Tiers[tier]
	nc := g.cfg.Namespaces[ns]
	sp := &SyncPolicy{}
	enabled := cmp.Or(nc.AutomatedEnabled, tc.AutomatedEnabled)
	if tc.Automated || enabled != nil {
		sp.Automated = &SyncPolicyAutomated{Enabled: enabled, Prune: tc.Prune, SelfHeal: tc.SelfHeal}
	}
	var base []string
	if tier == config.ArgoTierCluster {
		base = []string{"CreateNamespace=true"}
	}
	if opts := config.MergeSyncOptions(base, tc.SyncOptions, nc.SyncOptions); len(opts) > 0 {
		sp.SyncOptions = opts
	}
	if sp.Automated == nil && sp.SyncOptions == nil {
		return nil
	}
	return sp
}

func (g *generator) revision() string { return cmp.Or(g.cfg.Git.Revision, "HEAD") }

// gitPath is a repository path as Argo CD sees it inside the Git repository.
func (g *generator) gitPath(p string) string {
	return path.Join(cmp.Or(g.cfg.Git.Path, "."), p)
}
