// Package migrate rewrites a repository's kubernetes-external-secrets
// (KES, kubernetes-client.io/v1) ExternalSecrets as External Secrets
// Operator (external-secrets.io/v1) objects, with the SecretStores they
// read from (repotool migrate kes-to-eso).
//
// It works on files' text: each KES document (in a plain manifest, or a
// chart template that writes the object literally, with template actions
// only as values) is replaced by its ESO translation, or, side by side
// (Options.Suffix), followed by it; everything else in the file is kept
// byte for byte, comments included. SOPS-encrypted files are never read or
// written. The same input gives the same output.
//
// Plan (plan.go) scans the files and returns a Result; rewrite.go edits a
// file's text document by document; kes.go reads a KES object, convert.go
// translates it into an ExternalSecret, template.go its lodash templates,
// and store.go makes the SecretStore it reads from; output.go holds what a
// Result gives back: Write, WriteReport and Diff.
//
// Inside: `repotool migrate kes-to-eso`: finds KES ExternalSecrets in YAML
// files (`plan.go`; chart templates' value-only actions replaced by tokens,
// restored on output), translates each (`kes.go` reads it; `convert.go`: the
// ESO object; `store.go`: the store, named by a hash of its settings;
// `template.go`: lodash to ESO's v2 template), and edits files document by
// document, keeping every other line (`rewrite.go`); `Plan` → `Result` (files,
// converted, refused, to do) → `Diff`, `Write`, `WriteReport` (`output.go`).
// Links neither Helm nor SOPS.
package migrate
