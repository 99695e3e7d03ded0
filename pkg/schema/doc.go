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
//
// Inside: offline JSON-schema validation: the embedded, converted Kubernetes
// 1.29-1.37 schemas (`data/`, produced by `go generate`), conversion of
// OpenAPI and CRD schemas into strict JSON schemas (CRD defaults applied
// first, as the API server does), compiled in memory once per kind and version
// (`schemas.go`: a CRD added, else the embedded schema, else the extra
// locations), validation with the JSON-schema library kubeconform uses (extra
// locations through kubeconform's registries; each (version, document)
// validated once per `Validator`, its result remembered by the document's hash
// (a valid one by the hash alone), documents over 64 KiB one at a time, each
// parsed strictly with `manifest.DecodeStrict`), structured problems
// (`FieldError`: path, keyword, unknown and missing names) whose messages are
// built from the error's structure, never from its text.
package schema
