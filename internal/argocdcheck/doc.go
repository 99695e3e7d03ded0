// Package argocdcheck holds tests only: they decode every Argo CD object
// repotool generates (the golden files of pkg/argocd) strictly into Argo
// CD's own Go types and validate them against Argo CD's CRD schemas, as the
// Kubernetes API server would, against Argo CD 3.6 (which needs Go 1.27).
// Run them with
//
//	cd internal/argocdcheck && GOTOOLCHAIN=auto go test ./...
package argocdcheck
