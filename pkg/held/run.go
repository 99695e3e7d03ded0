package held

import (
	"context"
	"errors"
	"slices"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Plan is what Run does with a repository's targets.
type Plan struct {
	Renderer *render.Renderer
	// Targets are rendered, each once, in chart order (each chart loaded
	// once, and let go after its last target).
	Targets []layout.Target
	// Arrived is called with each rendering as it arrives (i: its
	// target's index in Targets), before it is stored: what the holder
	// keeps of it whole (its CRDs, say) it copies here.
	Arrived func(i int, res *render.Result)
	// Facts is what the holder keeps of object o, which it lets go the
	// parsed content of (nil: it keeps the content: the object is one
	// Parse names). Called as each rendering is stored.
	Facts func(o *manifest.Object) Facts
	// Parse reports whether a restored object gets its content parsed
	// again; the others' texts are read from the pool when asked.
	Parse func(o *manifest.Object) bool
	// Restored is called with each rendering as it is restored, with its
	// objects' facts as Plan.Facts gave them (all-empty facts may come
	// back with no lists), before its cluster is checked: what the
	// holder keeps of the facts it copies here.
	Restored func(res *render.Result, facts []Facts)
	// Stored is called once every target is stored, before the first
	// cluster is restored: the run then holds nothing else of them.
	Stored func(s *Store, hs []*Rendering)
	// Cluster checks one cluster's renderings, restored. What it keeps of
	// them past its return must not be their objects: they are let go.
	Cluster func(c *Cluster) error
}

// Cluster is one cluster's renderings, restored.
type Cluster struct {
	Name string
	// Index is the cluster's place among the targets' clusters (from 1),
	// Of their number: the shard of the repository it is.
	Index, Of int
	// Targets are its targets, Indexes their places in Plan.Targets and
	// Results their renderings.
	Targets []layout.Target
	Indexes []int
	Results []*render.Result
}

// Run renders p.Targets once each and stores them, then restores them a
// cluster at a time, in name order, for p.Cluster, letting each go before
// the next: a run holds one cluster's renderings whole, never the
// repository's. It stops when ctx ends (returning its error), and at the
// first failure to store or restore a rendering; a failure of p.Cluster
// does not stop it, and is joined into what it returns.
func Run(ctx context.Context, p Plan) error {
	s := NewStore()
	defer s.Close() // nothing read from it outlives the run
	hs := make([]*Rendering, len(p.Targets))
	var failed []error
	p.Renderer.RenderEachByChart(ctx, p.Targets, func(i int, res *render.Result) {
		p.Arrived(i, res)
		var err error
		if hs[i], err = s.Put(p.Renderer, res, p.Facts); err != nil {
			failed = append(failed, err)
		}
	})
	p.Renderer.ReleaseDocuments() // what a later rendering parses is its own
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	p.Stored(s, hs)
	if err := ctx.Err(); err != nil {
		return err
	}
	clusters := clustersOf(p.Targets)
	for c, name := range clusters {
		cl := &Cluster{Name: name, Index: c + 1, Of: len(clusters)}
		names := Names{}
		for i, t := range p.Targets {
			if t.Cluster != name {
				continue
			}
			res, facts, err := s.Restore(ctx, p.Renderer, t, hs[i], p.Parse, names)
			if err != nil {
				return err
			}
			p.Restored(res, facts)
			cl.Targets, cl.Indexes, cl.Results = append(cl.Targets, t), append(cl.Indexes, i), append(cl.Results, res)
		}
		failed = append(failed, p.Cluster(cl))
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, i := range cl.Indexes {
			if err := s.Release(hs[i], cl.Targets[k]); err != nil {
				return err
			}
			hs[i] = nil
		}
	}
	return errors.Join(failed...)
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
