// Package schema validates Kubernetes objects against JSON schemas, offline.
//
// It owns the schemas: built-in Kubernetes types for a window of minor
// versions, converted from the official OpenAPI spec by go generate and
// embedded compressed in the binary (see data/README.md), and schemas built
// on the fly from CRDs. Validation is kubeconform's, as a library, in strict
// mode (unknown fields and duplicate keys are errors). kubeconform reads
// schemas from files, so a Validator writes the schemas of the kinds it is
// asked about, and only those, into a folder of its own, once; schemas are
// compiled once and shared by every object validated afterwards.
//
// Nothing here uses the network unless extra schema locations given in
// Options are URLs.
package schema
