// Package repotool is the root of the repotool module: a library and CLI for
// Kubernetes GitOps manifest monorepos. The libraries live under pkg/, the
// command under cmd/repotool; see ARCHITECTURE.md.
package repotool
