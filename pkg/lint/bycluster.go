package lint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"runtime"
	"slices"

	"github.com/repotool/repotool/internal/textpool"
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
	return len(clustersOf(targets)) > 1
}

// lintByCluster lints targets a cluster at a time, so that a run holds
// one cluster's renderings whole rather than the repository's. Every
// target renders once, in chart order (each chart loaded once, and let go
// after its last target), and is stored (store.go) with the facts the
// checks across clusters need: its CRDs, kept whole for the inventory
// every cluster is checked with, and what values-unused compares. Then
// each cluster is a shard of as many as there are clusters (every check
// across a cluster's targets sees the whole cluster): its renderings are
// restored, checked and let go before the next; values-unused is judged
// once over every target, and each part folded in as Merge folds shards,
// once checked (its findings held once however many clusters report them).
// It reports what one pass over the same targets reports
// (TestByClusterExact).
func lintByCluster(ctx context.Context, repo *layout.Repo, opts Options, targets []layout.Target, extra []render.Option) (*Result, error) {
	r := render.New(repo, opts.Render, extra...)
	facts, texts := compacted{}, textpool.New()
	defer texts.Close() // nothing read from it outlives the run
	held := make([]*stored, len(targets))
	crds := make([]*render.Result, len(targets)) // each target's CRDs alone
	// What values-unused compares: each target's digest, when judged.
	digests, judged := make([][sha256.Size]byte, len(targets)), make([]bool, len(targets))
	var failed []error
	r.RenderEachByChart(ctx, targets, func(i int, res *render.Result) {
		facts.compact(res)
		if res.Err == nil && slices.ContainsFunc(res.Objects, func(o manifest.Object) bool { return manifest.IsCRD(o.APIVersion, o.Kind) }) {
			crds[i] = crdsOf(res)
		}
		digests[i], judged[i] = digestOf(res)
		var err error
		if held[i], err = store(r, res, facts, texts); err != nil {
			failed = append(failed, err)
		}
	})
	r.ReleaseDocuments() // what a later rendering (values-unused) parses is its own
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	sh := readRepo(repo) // its schema validator serves every cluster: all have the same CRDs
	warmSchemas(ctx, repo, opts, sh, held, crds, texts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	clusters := clustersOf(targets)
	m := &fold{scan: newUnusedScan()} // each part folded in once checked
	for c := range clusters {
		o := opts
		o.Shard = layout.Shard{I: c + 1, N: len(clusters)}
		cp, err := restoreCluster(ctx, r, clusters[c], targets, held, crds, facts, texts)
		if err != nil {
			return nil, err
		}
		err = m.check(repo, o, cp.targets, cp.results, facts, &evidence{ctx: ctx, renderer: r, crdSources: cp.others, shared: sh, laterUnused: true})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		failed = append(failed, err)
		if err := cp.letGo(facts, texts); err != nil {
			return nil, err
		}
		sh.repo.files.Forget() // the entries the cluster's checks made
		// A collection before the next cluster is restored: a cycle that
		// spans the two counts both clusters' renderings live and sets the
		// heap's goal from them (some 10 MB of peak memory at 1,000 targets
		// a cluster, for a tenth of a second a cluster).
		runtime.GC()
	}
	if ruleOn(repo, ruleValuesUnused) {
		var list []unusedSubject
		for i := range targets {
			if judged[i] {
				list = append(list, unusedSubject{target: targets[i], digest: digests[i]})
			}
		}
		docs := valuesDocs{files: sh.repo.files, helm4: helm4(repo, opts)}
		if judged := judgeValuesUnused(list, &evidence{ctx: ctx, renderer: r}, docs); judged != nil {
			m.scan, m.judged = judged, true
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res := m.finish(repo, sh.sup)
	res.err = errors.Join(failed...)
	return res, res.err
}

// clusterPart is a cluster's renderings restored for its checks.
type clusterPart struct {
	targets  []layout.Target
	results  []*render.Result
	others   []*render.Result // the CRDs of the other clusters' targets
	restored []*stored
}

// restoreCluster restores the renderings of cluster's targets, letting go
// of them in held.
func restoreCluster(ctx context.Context, r *render.Renderer, cluster string, targets []layout.Target, held []*stored,
	crds []*render.Result, facts compacted, texts *textpool.Pool) (*clusterPart, error) {
	cp, names := &clusterPart{}, interned{}
	for i, t := range targets {
		if t.Cluster != cluster {
			if crds[i] != nil {
				cp.others = append(cp.others, crds[i])
			}
			continue
		}
		res, err := held[i].restore(ctx, r, t, facts, texts, names)
		if err != nil {
			return nil, err
		}
		cp.targets, cp.results, cp.restored = append(cp.targets, t), append(cp.results, res), append(cp.restored, held[i])
		held[i] = nil // let go once checked
	}
	return cp, nil
}

// letGo lets go of what the part's renderings hold in facts and texts,
// once checked.
func (cp *clusterPart) letGo(facts compacted, texts *textpool.Pool) error {
	for k, s := range cp.restored {
		if err := s.release(texts, cp.targets[k]); err != nil {
			return err
		}
	}
	for _, res := range cp.results {
		for k := range res.Objects {
			delete(facts, &res.Objects[k])
		}
	}
	return nil
}

// crdsOf is a rendering's CRDs alone, their YAML copied (not the whole
// stream's memory).
func crdsOf(res *render.Result) *render.Result {
	out := res.Only(func(o *manifest.Object) bool { return manifest.IsCRD(o.APIVersion, o.Kind) })
	for i := range out.Objects {
		out.Objects[i].YAML = bytes.Clone(out.Objects[i].YAML)
	}
	return out
}

// clustersOf is the clusters of targets, sorted.
func clustersOf(targets []layout.Target) []string {
	var out []string
	for _, t := range targets {
		out = append(out, t.Cluster)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
