//go:build tools

package release

// The goreleaser the test builds, required here so that go.mod and go.sum
// pin it and its dependencies.
import _ "github.com/goreleaser/goreleaser/v2"
