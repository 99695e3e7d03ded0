// Package finding is the model of what checks report: a Finding (rule,
// severity, message, location; never a secret value), a Report that orders
// and counts findings, and the documentation of a Rule. It is a leaf of the
// library, shared by lint, by the formatters of pkg/output and by any other
// producer of findings, none of which need link the checks (Helm, SOPS).
//
// Inside: the finding model (a leaf): `Finding`, `Severity`, `Summary`,
// `Report` (merge, order, count: `Finish`; count alone: `Count`), `Folder`
// (`folder.go`: findings that differ only by target merged as they are added,
// part after part, found by 16 bytes of their key's SHA-256, file and target
// names held once and named by index, the rest gob-encoded in blocks
// compressed once full, in memory), and `Rule`, a rule's documentation. lint
// produces it and output formats it, so formatting findings does not link the
// checks.
package finding
