// Package argocdcheck holds tests only: they decode every Argo CD object
// repotool generates (the golden files of pkg/argocd) strictly into Argo
// CD's own Go types and validate them against Argo CD's CRD schemas, as the
// Kubernetes API server would, against Argo CD 3.6 (which needs Go 1.27).
// Run them with
//
//	cd internal/argocdcheck && GOTOOLCHAIN=auto go test ./...
//
// Inside: a separate, test-only Go module (own `go.mod` with argo-cd/v3 3.6.1,
// no `replace` directives, Go 1.27 through `GOTOOLCHAIN=auto`): decodes the
// generated objects strictly into Argo CD's types and validates them against
// its CRD schemas and plugin validation; asks Argo CD's AppProject methods
// every question of `pkg/argocd/testdata/permissions.golden` and requires
// repotool's answers; asks Argo CD's `GetSourceRefreshPaths` and
// `AppFilesHaveChanged` which Applications each commit of
// `pkg/diff/testdata/refresh.golden.json` refreshes and requires the set
// `repotool diff` reports; runs the CMP server through the tar exclusions
// `generate plugin` prints; has Argo CD's commit server (`WriteForPaths`,
// default README template) write the hydrator companions for
// `pkg/hydrate/testdata/companions.golden.json` and requires the bytes
// `repotool hydrate` writes; `tarsize` measures the plugin's tarball with Argo
// CD's own code. It cannot import repotool (Helm's versions clash with
// argo-cd's pins), so the two modules meet through that file.
package argocdcheck
