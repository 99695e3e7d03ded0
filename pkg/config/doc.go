// Package config reads repotool.yaml, the optional file at a repository's
// root that says what the folder structure cannot: the clusters' Kubernetes
// versions, the namespaces' tiers and owners, how to lint, render and
// generate Argo CD objects, and the folder names of a layout that differs
// from the default.
//
// Parse decodes the file strictly (an unknown key, a wrong type or an
// invalid value is a *Error naming the file and line and saying how to fix
// it) over DefaultConfig. Each section of the file has its own source file
// holding its types, the accessors other packages ask, and its validation:
// clusters.go (defaults and clusters), namespaces.go, layout.go, lint.go,
// render.go, argocd.go (git and argocd; the sync options in
// syncoptions.go); parse.go holds Parse and the order sections are checked
// in. It links neither Helm nor SOPS.
//
// Inside: `repotool.yaml`: the `Config` types every stage reads (layout,
// render, lint, argocd), strict parsing (`Parse`, `parse.go`) with file:line
// errors (`*config.Error`), defaults, one file per section of the file with
// its types, accessors and validation (`clusters.go`, `namespaces.go`,
// `layout.go`, `lint.go`, `admission.go` (clusters' admissionPolicies,
// namespaces' labels, lint.checks), `render.go`, `hydrate.go`, `secrets.go`
// (key allowances, honoured from a trusted revision only), `argocd.go`,
// `syncoptions.go`), and the typed tiers: a namespace's `Tier` (application or
// cluster) and Argo CD's `ArgoTier` (cluster, namespaces, application).
// `checkScalars` holds each setting's node to its field's type where yaml is
// lenient (a number for a string, `yes` for a boolean), at its line.
package config
