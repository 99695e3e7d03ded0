// Package hydrate writes every target's rendered manifests as files, the
// way Argo CD's Source Hydrator writes an application's: for the target
// (cluster, namespace), <cluster>/<namespace>/manifest.yaml with the
// objects as `repotool render` prints them, README.md and
// hydrator.metadata beside it, and a hydrator.metadata and .gitattributes
// at the root, in Argo CD 3.6's formats (metadata.go; internal/argocdcheck
// compares them with Argo CD's own). Committed to a branch, they are what
// a plain directory source or GitOps Promoter deploys, and what a
// reviewer reads.
//
// Secrets never leave in plain text. A rendering that holds a Secret
// fails its target in the one mode there is so far, SecretsRefuse; and a
// field outside a Secret's data that a secret value made (an environment
// literal, an annotation, a ConfigMap) fails it in every mode, since no
// encryption of Secrets could protect it (render.Result.SecretFields
// finds those fields by the rendering with placeholders).
//
// Hydrate makes the files in memory; Sync writes them to a folder (changed
// files only, the stale files of targets that are gone removed) and Commit
// to one branch per cluster (a commit only when its tree changes, and
// Argo CD's git note); nothing is written while a target fails.
package hydrate
