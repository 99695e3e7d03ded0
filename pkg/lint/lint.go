package lint

import (
	"context"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// Lint renders every target of repo, runs every rule, applies suppressions
// and returns the findings. extra injects render dependencies (a Decrypter,
// an HTTP client, a logger). It returns an error when the context ends, or
// when repotool itself fails during a check (see Result.Err).
func Lint(ctx context.Context, repo *layout.Repo, opts Options, extra ...render.Option) (*Result, error) {
	extra = append(RenderOptions(), extra...)
	targets, err := scope(repo, opts)
	if err != nil {
		return nil, err
	}
	opts.Render.VerifyUnstable = true // unstable-render reports only calls that change the output
	if opts.Targets != nil {
		w := render.New(repo, opts.Render, extra...)
		if opts.Targets = widened(ctx, w, repo, targets, opts.Targets); ctx.Err() != nil {
			return nil, ctx.Err()
		}
		extra = append(extra, render.SharingWith(w))
		if targets, err = scope(repo, opts); err != nil {
			return nil, err
		}
	}
	if byCluster(opts, targets) {
		return lintByCluster(ctx, repo, opts, targets, extra)
	}
	r := render.New(repo, opts.Render, extra...)
	part := opts.Shard.ClusterTargets(targets)
	var crdSources []*render.Result
	switch {
	case opts.Shard.N > 1 && opts.CRDInventory != nil:
		if crdSources, err = opts.CRDInventory.sources(repo, part); err != nil {
			return nil, err
		}
	case opts.Shard.N > 1:
		crdSources = otherShardsCRDs(ctx, r, repoFiles(repo), targets, part)
		r.ReleaseDocuments() // the other shards' documents: the part's are its own
	}
	res := lintPart(ctx, repo, opts, part, &evidence{ctx: ctx, renderer: r, crdSources: crdSources})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Shard.N > 1 {
		res.layout = layoutDigest(repo)
	}
	return res, res.Err()
}

// lintPart renders targets (all of them, or a part: a shard's, one
// cluster's) with ev's renderer, runs every rule and keeps the findings
// of the part (keepTargets); an empty Result when ctx ends.
func lintPart(ctx context.Context, repo *layout.Repo, opts Options, targets []layout.Target, ev *evidence) *Result {
	results := make([]*render.Result, len(targets))
	objs := newObjects(ruleFacts)
	ev.renderer.RenderEach(ctx, targets, func(i int, res *render.Result) {
		objs.letGo(res)
		results[i] = res
	})
	if ctx.Err() != nil {
		return &Result{}
	}
	return checkPart(repo, opts, targets, results, objs, ev)
}

// checkPart runs every rule over the renderings of targets and keeps the
// findings of the part.
func checkPart(repo *layout.Repo, opts Options, targets []layout.Target, results []*render.Result, objs *objects, ev *evidence) *Result {
	res := checkAll(repo, results, opts, objs, ev)
	if opts.Cluster != "" || opts.Shard.N > 1 || opts.Targets != nil {
		res.keepTargets(targets, opts.Shard.First(), opts.Cluster != "")
	}
	return res
}

// Check runs every rule over renderings already made (one per target of
// repo, in target order, with RenderOptions), for callers that render
// themselves. unstable-render reports the renderings' Unstable as they
// have it: every call made, unless they were made with
// render.Options.VerifyUnstable.
func Check(repo *layout.Repo, results []*render.Result, opts Options) *Result {
	return checkAll(repo, results, opts, nil, &evidence{ctx: context.Background(), renderer: render.New(repo, opts.Render, RenderOptions()...)})
}
