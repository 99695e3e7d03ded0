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
// The model (Repo, Cluster, Namespace, Target) is in model.go; Load in
// load.go, and the one walk of the folders that finds the targets (the
// default layout's and layout.targets' path template alike) in walk.go;
// the checks that make its Diagnostics (folders, names, values files) in
// checks.go and their codes in diagnostic.go; the run's file index (Files)
// in files.go; Inputs, the paths that decide a target's rendering, in
// inputs.go; Shard in shard.go. The repository's own Argo CD
// Applications (applications.paths) are targets too, each of the cluster
// its destination names (Target.App): found and mapped to clusters in
// apps.go, read in appdoc.go, made a target in apptarget.go; those an
// ApplicationSet makes are expanded by package appset (appsets.go).
//
// Inside: the repository model (`model.go`): clusters, namespaces, targets
// (kept, with their `Errors`, when they cannot be loaded), values files in
// merge order, the loaded `config.Config`, layout diagnostics (the checks in
// `checks.go`, their codes in `diagnostic.go`; a namespace's folder in
// `load.go`, a target and its values in `targets.go`; a shared chart, values
// lists, cluster-wide values and the warnings for files no target reads in
// `sources.go`; the walk in `walk.go`: the default layout is the path
// template `<clustersDir>/{cluster}/{namespace}`, found as `layout.targets`'s
// are, and every template builds the same model, so that nothing downstream
// reads folder names: `Repo.Folders`, `Repo.ClusterOf` and `Target.Folders` answer
// what commands asked of `clustersDir` before), symlink containment, and the
// run's file index (`Repo.Files`): files read and parsed (YAML nodes with
// positions) when a stage asks, what is kept of them bounded (`held.go`:
// `MaxHeldData` bytes read, `MaxHeldParsed` bytes parsed, least recently used
// out first; a file let go is read again when asked; the values files the load
// checked last are let go when it ends, the charts' files kept), what the
// first parse learnt (SOPS metadata, the parse error: `File.Sops`, `File.Err`)
// kept for the run, behind one pointer nil for most files, each distinct SOPS
// metadata held once for all the files encrypted alike (`sopsmeta.go`); render
// reads values files from it and lint every file it checks. `Files.Forget`
// (`forget.go`) lets go of the entries of the files that hold nothing and
// learnt nothing a read would not learn again but their SOPS metadata (`Load`,
// once it has checked the values files; lint, as its scans go and after each
// cluster's checks): an encrypted file read and parsed clean stays as its
// metadata in a table by path; a file read and parsed clean stays as one mark
// (`internal/pathset`: a bit over the repository's listing, `Files.Paths`,
// a front-coded set of paths, once it is made; a path it does not hold in
// sorted runs of such sets; a search allocates nothing),
// so that asking for its facts again reads nothing; one known to hold no SOPS
// metadata otherwise (its parse failed before any, or its bytes cannot spell
// the key: `Sops` does not parse a file that holds neither "sops", a backslash
// nor a NUL byte, `FuzzSpellsNoSops`), as a mark in a second set, so that
// `Sops` answers without reading it (`Err` parses it again for its error).
// `Options.Only` loads one target and what it needs: its namespace and cluster
// folders, nothing of the others (`render -c -n` and the Argo CD plugin).
// `Repo.Inputs` is the one answer to "which repository paths decide what this
// target renders" (the repository-wide files, its folder, its chart and the
// charts it depends on through `file://`, where their links and its values
// links lead): `diff` decides affected targets from it (`InputHolds`: a path,
// a folder, or a glob for cluster-wide values, as Argo CD matches them) and
// `generate` writes it into each Application's `manifest-generate-paths`.
// `FileDependency` is the one `file://` rule and `ChartFileDependencies` the
// one reading of a Chart.yaml's `file://` dependencies (through the file
// index), which the inputs, the renderer's chart loading and its cycle check
// all call (`TestFileDependencyCallersAgree` feeds all three the same tricky
// trees): if they disagreed, manifest-generate-paths and the rendering would
// disagree, a silent stale deploy.
package layout
