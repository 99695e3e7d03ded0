// Package appset expands Argo CD ApplicationSets offline into the
// Applications Argo CD 3.6's ApplicationSet controller would make, so that
// each one can be checked as a target before it is merged.
//
// Expand reads one ApplicationSet document and an Env: the repository
// under check (which the git generator lists and reads) and the clusters
// of the Argo CD that reads it (which the clusters generator lists). It
// expands the list, clusters, git (files and directories), matrix and
// merge generators, with a generator's selector and own template, in Go templates (with
// sprig's functions and Argo CD's own, goTemplateOptions) or in the
// default syntax, and applies templatePatch. A generator that needs a
// live API (SCM provider, pull request, cluster decision resource,
// plugin, OCI) is an Error at its line with Unsupported set: its
// Applications are never dropped silently.
//
// Templates are repository content: no function reads the environment,
// the clock or chance, and a template's loops, lists and output are
// bounded in size and time.
//
// Inside: Expand and the spec's reading in appset.go; the generators in
// generators.go (list, matrix, merge), clusters.go and git.go, with git's
// pathspecs in pathspec.go and label selectors in selector.go; template
// strings in render.go and templates as YAML in node.go; templatePatch in
// patch.go.
package appset
