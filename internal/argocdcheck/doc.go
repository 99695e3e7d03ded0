// Package argocdcheck holds tests only: they decode every Argo CD object
// repotool generates (the golden files of pkg/argocd) strictly into Argo
// CD's own Go types and validate them against Argo CD's CRD schemas, as the
// Kubernetes API server would. Run them with
//
//	cd internal/argocdcheck && go test ./...
package argocdcheck
