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
//
// Inside: the object model every other package shares (a leaf: no other `pkg/`
// import, no Helm, no SOPS): `Object` (apiVersion, kind, name, namespace, its
// `Source` (repository file, or archive and member: the one place the
// `archive.tgz!member` reference is written and read), line, YAML (or, once
// `HoldText` hands it to a loader, the text loaded again on each `Text`),
// parsed content and, for repository manifests, its yaml node), `Key` (group,
// kind, namespace, name: stable across an apiVersion bump), `Decode` (the one
// parse of a document into content: sigs.k8s.io/yaml's exact result, which
// Helm and Argo CD read with, without its JSON round trip; `FuzzDecode` holds
// the two alike; `DecodeStrict` is the same for sigs.k8s.io/yaml's
// `UnmarshalStrict`, which kubeconform validates with, a key set twice its
// error: `FuzzDecodeStrict`) and `CopyContent`, the stream reader and writer
// (`Read`, `Append`) that render and argocd use, and the CRD inventory (`CRD`,
// `CRDs`: one per name, looked up by group and kind) that lint and argocd
// share: `ReadChartCRDs` finds the CRDs charts install without rendering
// (crds/ folders, packaged subcharts), `CRDsOf` those a rendering holds.
package manifest
