// Module corpus pins real upstream material for repotool's tests: the Go
// modules of well-known Kubernetes projects, whose module zips carry their
// CustomResourceDefinitions and their own example resources. Nothing
// imports them and nothing here is built: `go mod download` in this folder
// (part of the README's test command) brings the pinned, checksummed zips
// into the module cache, and the tests read the files from there. The test
// suite never downloads anything. SOURCES.md says what is used from each.
//
// The go line is 1.27.0 because argo-cd v3.6 requires it: run every go
// command here with GOTOOLCHAIN=auto, as the README's test command and
// testtool.CorpusDir do (repotool itself stays on Go 1.26).
//
// Do not run `go mod tidy` here: with nothing imported it would drop every
// requirement. To move a project to a new version, edit its line and run
// `go mod download <module>` to record the new sums.
module github.com/repotool/repotool/internal/corpus

go 1.27.0

require (
	github.com/argoproj/argo-cd/v3 v3.6.1
	github.com/argoproj/argo-rollouts v1.9.0
	github.com/cert-manager/cert-manager v1.21.2
	github.com/external-secrets/external-secrets v1.3.2
	github.com/fluxcd/source-controller v1.7.0
	github.com/kedacore/keda/v2 v2.18.0
	github.com/prometheus-operator/prometheus-operator v0.85.0
	k8s.io/ingress-nginx v0.0.0-20240708192948-52c50467d67d
	sigs.k8s.io/gateway-api v1.6.0
)
