// Package argocd generates the Argo CD objects that deploy a repository:
// per cluster, three responsibility tiers of AppProjects and Applications
// and a root "app of apps" Application, plus the Config Management Plugin
// definition that runs `repotool render --argocd`.
//
// The tiers:
//
//   - cluster: one AppProject for the namespaces repotool.yaml marks as
//     cluster tier (Argo CD, cert-manager, External Secrets Operator, ...),
//     one Application each; cluster-scoped resources allowed; only the SRE
//     groups may sync.
//   - namespaces: one AppProject and, per application namespace, one
//     Application holding the manifests that affect security (the Namespace,
//     Secrets, ExternalSecrets, Ingresses, RBAC, NetworkPolicies, quotas);
//     only the SRE groups may sync.
//   - application: per application namespace, one AppProject restricted to
//     that namespace, with no cluster-scoped or security kinds, and one
//     Application; the SRE groups and the namespace's owners may sync.
//
// Tiers "namespaces" and "application" render the same chart: Tiers.Split
// decides which tier owns each rendered object, so that nothing is lost or
// doubled between them.
//
// The types here cover the argoproj.io/v1alpha1 fields repotool emits;
// they do not import Argo CD (its types pin old Kubernetes libraries). A
// separate test-only module, internal/argocdcheck, decodes the generated
// objects strictly into Argo CD's real types and validates them against its
// CRD schemas.
//
// ParsePluginEnv reads the environment Argo CD gives the Config Management
// Plugin; PluginEnv says which target and tier the plugin renders.
//
// Inside: Argo CD generation: typed argoproj.io/v1alpha1 structs for the
// fields repotool emits (no argo-cd import), the three responsibility tiers
// (`Tiers`: which tier owns an object, `Split` of a rendering's objects for
// the plugin, the Namespace it writes for an application namespace with
// repotool.yaml's labels: `NamespaceLabels`, which lint's admission-policy
// rule reads through the `Plan`), AppProjects (`projects.go`), Applications
// and the root app (`applications.go`) per cluster (`generate.go`; refused
// while the layout has errors), the `manifest-generate-paths` annotation of
// every Application (from `layout.Repo.Inputs`), `TarExclusions` (what the
// repo-server need not send the plugin), `Excluded` (the kinds Argo CD's
// resource exclusions leave out: its built-in ones, argocd-cm's 3.0 defaults
// or repotool.yaml's copy), the per-cluster `Plan` (the projects `generate`
// would make, and which Application and project deploy each rendered object),
// the AppProject model (`AppProject.Permits`: may this project deploy this
// kind into this namespace and cluster, and if not, which rule refuses it;
// answers checked against Argo CD's own `IsResourcePermitted` over a table of
// cases in `internal/argocdcheck`), `Sync` (writing the output folder: check
// everything, then write changed files and prune stale generated ones), the
// Config Management Plugin and its install objects, and the environment Argo
// CD gives the plugin (`PluginEnv`, `pluginenv.go`: which target, which tier,
// the repository root, and `Admit`: the plugin renders only a target of the
// sidecar's cluster, `REPOTOOL_CLUSTER`, in the Application's destination
// namespace and of the tier asked for, before anything is decrypted;
// `PluginInstall` writes `REPOTOOL_CLUSTER` and the key allowances into the
// sidecar's environment).
package argocd
