package argocd

import (
	"cmp"
	"path"
	"slices"
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
			Project:           project,
			Destination:       g.dest(cl, ns),
			SyncPolicy:        g.syncPolicy(tier, ns),
			IgnoreDifferences: slices.Concat(g.cfg.IgnoreDifferencesFor(ns), g.extraIgnores[cl.Name+"/"+name]),
		},
	}
	plugin := &ApplicationSourcePlugin{Name: g.set.PluginName, Env: []EnvEntry{
		{Name: "CLUSTER", Value: cl.Name},
		{Name: "NAMESPACE", Value: ns},
		{Name: "TIER", Value: string(tier)},
	}}
	paths := g.refreshPaths(t)
	switch g.cfg.ArgoCD.SourceMode() {
	case config.SourceHydrated:
		// The branch repotool hydrate --branch writes: one folder per
		// Application, named as it is (hydrate.AppPaths). Its refresh
		// paths are that folder.
		app.Spec.Source = &ApplicationSource{
			RepoURL:        g.cfg.Git.RepoURL,
			TargetRevision: g.cfg.ArgoCD.HydratedBranch(cl.Name),
			Path:           name,
			Directory:      &ApplicationSourceDirectory{},
		}
		paths = "."
	case config.SourceSourceHydrator:
		// The plugin renders the dry commit, with the secrets mode
		// hydrate uses for the cluster, so that the hydrator never
		// commits a Secret in plain text; each Application has a folder
		// of its own on the branch, as the hydrator requires.
		mode := g.cfg.Hydrate.SecretsFor(cl.Name)
		plugin.Env = append(plugin.Env, EnvEntry{Name: "SECRETS", Value: string(mode)})
		if extra := g.repo.SecretsInputs(cl.Name, mode); len(extra) > 0 { // what seals its Secrets: an input too
			list := strings.Split(paths, ";")
			for _, p := range extra {
				list = append(list, "/"+g.gitPath(p))
			}
			slices.Sort(list)
			paths = strings.Join(list, ";")
		}
		sh := &SourceHydrator{
			DrySource:  DrySource{RepoURL: g.cfg.Git.RepoURL, TargetRevision: g.revision(), Path: g.gitPath(t.Dir), Plugin: plugin},
			SyncSource: SyncSource{TargetBranch: g.cfg.ArgoCD.HydratedBranch(cl.Name), Path: name},
		}
		if g.cfg.ArgoCD.Hydrated.HydrateTo {
			sh.HydrateTo = &HydrateTo{TargetBranch: sh.SyncSource.TargetBranch + "-next"}
		}
		app.Spec.SourceHydrator = sh
	default:
		app.Spec.Source = &ApplicationSource{RepoURL: g.cfg.Git.RepoURL, TargetRevision: g.revision(), Path: g.gitPath(t.Dir), Plugin: plugin}
	}
	app.Metadata.Finalizers = []string{Finalizer}
	app.Metadata.Annotations = map[string]string{ManifestGeneratePaths: paths}
	if g.cfg.ArgoCD.ServerSideDiff {
		app.Metadata.Annotations[CompareOptions] = "ServerSideDiff=true"
	}
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
