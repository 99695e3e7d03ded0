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
package argocd
