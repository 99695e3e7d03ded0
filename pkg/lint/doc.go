// Package lint checks a GitOps monorepo: its files, and the manifests every
// target renders to, before Argo CD ever sees them.
//
// A rule is a value (Rule) with a stable ID, a summary, a remediation, a
// default severity and a check; Rules lists them all, sorted by ID. Lint
// loads nothing itself: it takes a loaded layout.Repo, renders the targets
// with package render, runs every rule over the result, applies
// suppressions ("# repotool:ignore <rule> <reason>" comments and
// repotool.yaml lint.ignore entries) and returns a Result whose findings are
// sorted and de-duplicated across clusters. The Result decides the exit
// code. Findings never contain a secret value.
//
// Formatting findings is package output's job; this package never prints.
package lint
