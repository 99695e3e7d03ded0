// Package release checks the release configuration (.goreleaser.yaml)
// with the goreleaser this module pins: see release_test.go.
package release
