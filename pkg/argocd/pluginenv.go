package argocd

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// PluginEnv is what Argo CD gives the generate command of a Config
// Management Plugin. Parse it with ParsePluginEnv from the process
// environment; the library itself never reads the environment.
type PluginEnv struct {
	// AppName is ARGOCD_APP_NAME.
	AppName string
	// AppNamespace is ARGOCD_APP_NAMESPACE: the Application's destination
	// namespace.
	AppNamespace string
	// SourcePath is ARGOCD_APP_SOURCE_PATH: the Application's path inside
	// the repository, which is also the plugin's working directory.
	SourcePath string
	// Cluster is ARGOCD_ENV_CLUSTER (the plugin env "CLUSTER").
	Cluster string
	// Namespace is ARGOCD_ENV_NAMESPACE; default AppNamespace.
	Namespace string
	// Tier is ARGOCD_ENV_TIER: which responsibility tier's objects to emit.
	Tier string
	// Secrets is ARGOCD_ENV_SECRETS: hydrate's secrets mode, for the dry
	// source of Argo CD's Source Hydrator ("" for a plain rendering).
	Secrets string
	// KubeVersion is KUBE_VERSION: the destination cluster's version.
	KubeVersion string
	// APIVersions is KUBE_API_VERSIONS: the destination cluster's API
	// versions, comma-separated.
	APIVersions []string
	// Sidecar is REPOTOOL_CLUSTER: the cluster whose Argo CD runs this
	// sidecar, set in the sidecar's own environment by generate plugin.
	// Argo CD passes an Application's plugin env only with the ARGOCD_ENV_
	// prefix, so no Application can set it.
	Sidecar string
}

// SidecarClusterEnv is the sidecar's variable naming its cluster.
const SidecarClusterEnv = "REPOTOOL_CLUSTER"

// ParsePluginEnv reads the Argo CD plugin variables from environ
// ("KEY=value" entries, as os.Environ returns).
func ParsePluginEnv(environ []string) PluginEnv {
	get := func(k string) string { return strings.TrimSpace(fsutil.Getenv(environ, k)) }
	e := PluginEnv{
		AppName:      get("ARGOCD_APP_NAME"),
		AppNamespace: get("ARGOCD_APP_NAMESPACE"),
		SourcePath:   get("ARGOCD_APP_SOURCE_PATH"),
		Cluster:      get("ARGOCD_ENV_CLUSTER"),
		Namespace:    get("ARGOCD_ENV_NAMESPACE"),
		Tier:         get("ARGOCD_ENV_TIER"),
		Secrets:      get("ARGOCD_ENV_SECRETS"),
		KubeVersion:  get("KUBE_VERSION"),
		Sidecar:      get(SidecarClusterEnv),
	}
	if e.Namespace == "" {
		e.Namespace = e.AppNamespace
	}
	for _, v := range strings.Split(get("KUBE_API_VERSIONS"), ",") {
		if v = strings.TrimSpace(v); v != "" {
			e.APIVersions = append(e.APIVersions, v)
		}
	}
	return e
}

// RepoRoot returns the repository root given the plugin's working directory
// (the Application's source path inside the checked-out repository).
func (e PluginEnv) RepoRoot(cwd string) (string, error) {
	sp := path.Clean(strings.Trim(filepath.ToSlash(e.SourcePath), "/"))
	if e.SourcePath == "" || sp == "." {
		return cwd, nil
	}
	if strings.HasPrefix(sp, "../") || sp == ".." {
		return "", fmt.Errorf("ARGOCD_APP_SOURCE_PATH %q leaves the repository", e.SourcePath)
	}
	root := filepath.Clean(cwd)
	for range strings.Split(sp, "/") {
		root = filepath.Dir(root)
	}
	if filepath.Join(root, filepath.FromSlash(sp)) != filepath.Clean(cwd) {
		return "", fmt.Errorf("the working directory %s does not end with ARGOCD_APP_SOURCE_PATH %q; Argo CD runs plugins from the source path", cwd, e.SourcePath)
	}
	return root, nil
}

// TargetRef is the target the environment names, before the repository
// is loaded: from the CLUSTER and NAMESPACE plugin variables when both are
// set (every Application generate writes sets them; a declared target's
// source path is its cluster's folder), else from a source path the
// default layout's template matches (<clusters>/<cluster>/<namespace>);
// nil when it names none. It is a guess that loads less: Target decides,
// by the repository's own layout.
func (e PluginEnv) TargetRef() *layout.TargetRef {
	cluster, ns := e.fromPath(config.DefaultConfig().Layout.TargetTemplate())
	if e.Cluster != "" && e.Namespace != "" {
		cluster, ns = e.Cluster, e.Namespace
	}
	if cluster == "" || ns == "" {
		return nil
	}
	return &layout.TargetRef{Cluster: cluster, Namespace: ns}
}

// fromPath are the cluster and namespace of the source path, when tpl
// matches it.
func (e PluginEnv) fromPath(tpl config.TargetTemplate) (cluster, ns string) {
	parts, ok := tpl.Match(path.Clean(strings.Trim(filepath.ToSlash(e.SourcePath), "/")))
	if !ok {
		return "", ""
	}
	return parts[config.PartCluster], parts[config.PartNamespace]
}

// Target finds the target the Application renders: from the source path
// when it is a target's folder by the repository's layout (layout.targets,
// or <clusters>/<cluster>/<namespace>), else from the CLUSTER and
// NAMESPACE plugin variables (NAMESPACE defaults to the destination
// namespace).
func (e PluginEnv) Target(repo *layout.Repo) (*layout.Target, error) {
	cluster, ns := e.Cluster, e.Namespace
	if c, n := e.fromPath(repo.Config.Layout.TargetTemplate()); c != "" {
		if cluster != "" && cluster != c {
			return nil, fmt.Errorf("ARGOCD_ENV_CLUSTER %q does not match the source path %s", e.Cluster, e.SourcePath)
		}
		cluster, ns = c, n
	}
	if cluster == "" || ns == "" {
		return nil, fmt.Errorf("cannot tell which target to render: point the Application's source path at a target's folder (%s), or set the "+
			"plugin env CLUSTER (and NAMESPACE, default the destination namespace); got cluster %q, namespace %q",
			strings.Join(repo.Config.Layout.TargetTemplate().Segments, "/"), cluster, ns)
	}
	t, ok := repo.Target(cluster, ns)
	switch {
	case !ok && repo.Config.Layout.Templated():
		return nil, fmt.Errorf("the repository has no target %s/%s (run `repotool layout` to list its targets)", cluster, ns)
	case !ok:
		return nil, fmt.Errorf("the repository has no target %s/%s (no %s/%s/%s/ folder with a chart in %s/%s/)",
			cluster, ns, repo.Config.Layout.ClustersDir, cluster, ns, repo.Config.Layout.NamespacesDir, ns)
	}
	return t, nil
}

// Admit decides whether the plugin may render t for the Application that
// called it, before anything is decrypted: everything under ARGOCD_ENV_
// (CLUSTER, NAMESPACE, TIER) is chosen by whoever may edit the
// Application, so it may name any target. The target must be of the
// sidecar's cluster (REPOTOOL_CLUSTER), in the Application's destination
// namespace (ARGOCD_APP_NAMESPACE, which Argo CD checks against the
// Application's project), and, for a tier, a namespace of that tier: the
// cluster tier renders only cluster-tier namespaces, the namespaces and
// application tiers only application namespaces. This is what every
// Application generate writes satisfies.
func (e PluginEnv) Admit(repo *layout.Repo, t *layout.Target, tier string) error {
	refuse := func(why string) error {
		return fmt.Errorf("refusing to render %s for Application %q: %s (nothing was decrypted)", t.Name(), e.AppName, why)
	}
	switch {
	case e.Sidecar == "":
		return refuse("the sidecar does not say which cluster it serves: set " + SidecarClusterEnv + " in its environment (repotool generate plugin " +
			"--cluster C writes it)")
	case t.Cluster != e.Sidecar:
		return refuse(fmt.Sprintf("this sidecar serves cluster %s (%s), and the target is cluster %s's", e.Sidecar, SidecarClusterEnv, t.Cluster))
	case t.App != nil:
		return refuse(fmt.Sprintf("the target is Application %q's, of %s:%d, which renders its own source, not through the plugin", t.App.Name, t.App.File,
			t.App.Line))
	case e.AppNamespace == "":
		return refuse("the Application has no destination namespace (ARGOCD_APP_NAMESPACE), and a target renders only for its own namespace")
	case t.Namespace != e.AppNamespace:
		return refuse(fmt.Sprintf("the Application deploys to namespace %s (ARGOCD_APP_NAMESPACE), and the target is namespace %s's", e.AppNamespace,
			t.Namespace))
	}
	nsTier := repo.Config.NamespaceTier(t.Namespace)
	switch config.ArgoTier(tier) {
	case config.ArgoTierCluster:
		if nsTier != config.TierCluster {
			return refuse(fmt.Sprintf("the cluster tier renders only cluster-tier namespaces, and %s is an application namespace", t.Namespace))
		}
	case config.ArgoTierNamespaces, config.ArgoTierApplication:
		if nsTier != config.TierApplication {
			return refuse(fmt.Sprintf("the %s tier renders only application namespaces, and %s is a cluster-tier namespace", tier, t.Namespace))
		}
	}
	return nil
}
