// Package manifest models Kubernetes manifests as repotool reads them: an
// Object with its identity (group, version, kind, namespace, name), where it
// was written (a Source: a repository file, or a member of a packaged
// chart), and its parsed content; a Key that identifies an object across
// revisions; and one reader for YAML streams, rendered or not.
//
// It also holds the CRD inventory every consumer shares (CRDs), and
// ReadChartCRDs, which finds the CRDs charts install without rendering.
//
// It is a leaf of the library: it depends on no other pkg/ package and on
// neither Helm nor SOPS, so that every consumer of objects (render, lint,
// argocd, and the comparisons and rewrites built on them) shares one model.
package manifest
