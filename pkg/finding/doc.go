// Package finding is the model of what checks report: a Finding (rule,
// severity, message, location; never a secret value), a Report that orders
// and counts findings, and the documentation of a Rule. It is a leaf of the
// library, shared by lint, by the formatters of pkg/output and by any other
// producer of findings, none of which need link the checks (Helm, SOPS).
package finding
