// Package layout models a GitOps manifest monorepo: which clusters and
// namespaces it has, which (cluster, namespace) targets exist, and each
// target's values files in merge order.
//
// The layout it reads is
//
//	namespaces/<ns>/Chart.yaml                            the namespace's chart
//	namespaces/<ns>/common-values-<x>.yaml                values every cluster shares
//	namespaces/<ns>/common-values-<x>.secret.yaml         SOPS-encrypted shared values
//	clusters/<cluster>/<ns>/<env>-values-<x>.yaml         this cluster's values
//	clusters/<cluster>/<ns>/<env>-values-<x>.secret.yaml  this cluster's encrypted values
//
// plus an optional repotool.yaml at the root (Config) for what folders cannot
// say. Files are classified by location, name pattern and the .secret.yaml
// suffix, never by exact name.
//
// Load is pure: it reads an fs.FS, never prints or exits, and reports layout
// problems as Diagnostics with file and line. Config also carries the
// settings of the other commands (lint, argocd), parsed as strictly. It does
// not render charts, decrypt secrets (see package render) or lint manifests
// (see package lint).
//
// The model (Repo, Cluster, Namespace, Target) is in model.go; Load and the
// walk of the folders in load.go; the checks that make its Diagnostics
// (folders, names, values files) in checks.go and their codes in
// diagnostic.go; the run's file index (Files) in files.go; Inputs, the
// paths that decide a target's rendering, in inputs.go; Shard in shard.go.
package layout
