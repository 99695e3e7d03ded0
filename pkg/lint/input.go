package lint

import (
	"context"

	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Lint's rules each read a few facts, not the whole run: a rule's check in
// the registry hands its function what it reads, and the function's
// parameters say what that is. The facts are
//   - repoFacts: the repository and what its files hold (plain manifests,
//     CRDs, .sops.yaml), read once;
//   - the renderings ([]*render.Result), with objects: what the rules
//     keep of the objects whose parsed content the run let go;
//   - positions: where rendered objects and values are;
//   - clusterView: one cluster as the cross-object rules see it;
//   - what the run was asked (asked).

// asked is what the run was asked, beyond the repository.
type asked struct {
	renderOpts render.Options
	schemaDir  string
	keys       sopsfile.KeyPolicy
	celBudget  int64
	// evidence renders again for the rules that decide by rendering.
	evidence *evidence
	// sharded: the run is one shard; values-unused leaves its judgment
	// to the merge (unused).
	sharded bool
	// validator is the run's schema validator, made once: the parts of a
	// run checked a cluster at a time share it (every cluster is checked
	// with the same CRDs).
	validator *sharedValidator
}

// input is a run's facts, and what the rules share while they run.
// buildInput fills it whole; the registry hands each rule its part.
type input struct {
	repo *repoFacts
	// results holds one rendering per target, in target order. A target
	// that failed has Err set (and the render rule reports it).
	results []*render.Result
	// objects are the facts of the rendered objects whose parsed
	// content the run let go (objects.go); nil from Check.
	objects  *objects
	at       *positions
	versions versions
	asked

	sup *suppressor
	// isRule reports whether a rule of that ID exists (RuleByID).
	isRule func(id string) bool
	// views are the clusters as the cross-object rules see them (see
	// clusterViews), computed once.
	views []*clusterView
	// admission is what the admission rules found, computed once (see
	// admitted), with what the parts of the run share (admissionRun).
	admission    *admissionOutcome
	admissionRun *admissionRun
	// unused is values-unused's judgment, kept for the merge in a sharded
	// run.
	unused *unusedScan
	// toolErr is a failure of repotool itself during a check (a schema
	// location that cannot be read): Lint returns it instead of findings.
	toolErr error
}

// clusterViews returns the view of every cluster with a rendered target,
// sorted by cluster name, computed once per run.
func (in *input) clusterViews() []*clusterView {
	if in.views == nil {
		in.views = newClusterViews(in.repo.Repo, in.repo.CRDs, in.results)
	}
	return in.views
}

// runContext is the run's context, for rules that evaluate at length (the
// admission policies, the user's checks): they stop when it ends.
func (a *asked) runContext() context.Context {
	if a.evidence != nil && a.evidence.ctx != nil {
		return a.evidence.ctx
	}
	return context.Background()
}
