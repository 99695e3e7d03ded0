package lint

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"

	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// DefaultHeldTargets is how many targets' renderings a run holds at once
// unless Options.HeldTargets says otherwise: a run over more targets, in
// more than one cluster, is checked a cluster at a time.
const DefaultHeldTargets = 1000

// byCluster reports whether a run of opts over targets is checked a
// cluster at a time: a run over every target, or over the targets a
// change affects (Options.Targets), but neither a shard nor one
// cluster's, over more targets than it may hold at once, in more than one
// cluster.
func byCluster(opts Options, targets []layout.Target) bool {
	held := opts.HeldTargets
	if held == 0 {
		held = DefaultHeldTargets
	}
	if opts.Shard.N > 1 || opts.Cluster != "" || held < 0 || len(targets) <= held {
		return false
	}
	return slices.ContainsFunc(targets, func(t layout.Target) bool { return t.Cluster != targets[0].Cluster })
}

// lintByCluster lints targets a cluster at a time (held.Run), so that a
// run holds one cluster's renderings whole rather than the repository's.
// Every target renders once and is stored with what the rules keep of its
// objects (objects.go), its CRDs kept whole for the inventory every
// cluster is checked with, and what values-unused compares. Then each
// cluster is a shard of as many as there are clusters (every check across
// a cluster's targets sees the whole cluster), checked as its renderings
// come back; values-unused is judged once over every target, and each
// part folded in as Merge folds shards, once checked (its findings held
// once however many clusters report them). It reports what one pass over
// the same targets reports (TestByClusterExact).
func lintByCluster(ctx context.Context, repo *layout.Repo, opts Options, targets []layout.Target, extra []render.Option) (*Result, error) {
	r := render.New(repo, opts.Render, extra...)
	objs := newObjects(ruleFacts)
	crds := make([]*render.Result, len(targets)) // each target's CRDs alone
	// What values-unused compares: each target's digest, when judged.
	digests, judged := make([][sha256.Size]byte, len(targets)), make([]bool, len(targets))
	// The repository's own files are read once every target is stored: the
	// renderings do not need them, and held through the rendering they
	// raised its peak (docs/performance.md). Its schema validator serves
	// every cluster: all have the same CRDs.
	var sh *shared
	m := &fold{scan: newUnusedScan()} // each part folded in once checked
	err := held.Run(ctx, held.Plan{
		Renderer: r,
		Targets:  targets,
		Arrived: func(i int, res *render.Result) {
			objs.letGo(res)
			if res.Err == nil && slices.ContainsFunc(res.Objects, func(o manifest.Object) bool { return manifest.IsCRD(o.APIVersion, o.Kind) }) {
				crds[i] = crdsOf(res)
			}
			digests[i], judged[i] = digestOf(res)
		},
		Facts:    objs.take,
		Parse:    readWhole,
		Restored: objs.give,
		Stored: func(s *held.Store, hs []*held.Rendering) {
			sh = readRepo(repo)
			warmSchemas(ctx, repo, opts, sh, s, hs, crds)
		},
		Cluster: func(c *held.Cluster) error {
			o := opts
			o.Shard = layout.Shard{I: c.Index, N: c.Of}
			var others []*render.Result // the CRDs of the other clusters' targets
			for i, res := range crds {
				if res != nil && !slices.Contains(c.Indexes, i) {
					others = append(others, res)
				}
			}
			err := m.checkAndFold(repo, o, c.Targets, c.Results, objs, &evidence{ctx: ctx, renderer: r, crdSources: others, shared: sh, laterUnused: true})
			for _, res := range c.Results {
				objs.forget(res)
			}
			sh.repo.files.Forget() // the entries the cluster's checks made
			return err
		},
	})
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if sh == nil { // a rendering could not be stored: no cluster was checked
		if err == nil {
			err = errors.New("lint: the renderings were not stored, and no cluster was checked") // not reached
		}
		return nil, err
	}
	if ruleOn(repo, ruleValuesUnused) {
		var list []unusedSubject
		for i := range targets {
			if judged[i] {
				list = append(list, unusedSubject{target: targets[i], digest: digests[i]})
			}
		}
		docs := valuesDocs{files: sh.repo.files, helm4: readsAsHelm4(repo, opts)}
		if judged := judgeValuesUnused(list, &evidence{ctx: ctx, renderer: r}, docs); judged != nil {
			m.scan, m.judged = judged, true
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res := m.finish(repo, sh.sup)
	res.err = err
	return res, res.err
}
