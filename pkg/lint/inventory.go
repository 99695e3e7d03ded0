package lint

import (
	"context"
	"errors"
	"fmt"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A sharded run needs the whole repository's CRD inventory (shard.go).
// Each shard can render the other shards' candidates itself, or one job
// renders every candidate once and hands the shards a CRDInventory
// (Options.CRDInventory), which cuts each shard's work to its own targets.

// Inventory renders every target opts selects that may render a CRD (the
// same candidates a shard renders of the others) and returns their CRDs,
// for the shards of a run over repo.
func Inventory(ctx context.Context, repo *layout.Repo, opts Options, extra ...render.Option) (*CRDInventory, error) {
	opts.Shard = layout.Shard{}
	targets, err := scope(repo, opts)
	if err != nil {
		return nil, err
	}
	r := render.New(repo, opts.Render, append(RenderOptions(), extra...)...)
	inv := &CRDInventory{Version: CRDInventoryVersion, Layout: layoutDigest(repo), CRDs: []InventoryCRD{}}
	candidates := crdCandidates(ctx, r, repoFiles(repo), targets, nil)
	byTarget := make([][]InventoryCRD, len(candidates))
	failed := make([]error, len(candidates))
	// Each rendering is let go as it comes, with its CRDs taken from the
	// rendering with placeholders.
	r.RenderEachByChart(ctx, candidates, func(i int, res *render.Result) {
		if res.Err != nil {
			return
		}
		objs, err := res.RedactedObjects()
		if err != nil {
			failed[i] = fmt.Errorf("%s: %w", res.Target.Name(), err)
			return
		}
		for _, o := range objs {
			if manifest.IsCRD(o.APIVersion, o.Kind) {
				byTarget[i] = append(byTarget[i], InventoryCRD{Target: res.Target.Name(), File: o.File, Member: o.Member, Template: o.Template,
					APIVersion: o.APIVersion, Name: o.Name, YAML: string(o.YAML)})
			}
		}
	})
	for _, crds := range byTarget {
		inv.CRDs = append(inv.CRDs, crds...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return inv, errors.Join(failed...)
}

// sources are the inventory's CRDs of the targets outside shard, as the
// renderings a shard would have made of them, once the inventory is found
// to be of repo's layout.
func (inv *CRDInventory) sources(repo *layout.Repo, shard []layout.Target) ([]*render.Result, error) {
	if inv.Layout != layoutDigest(repo) {
		return nil, fmt.Errorf("the CRD inventory was made of another layout than the repository's here (another commit, or another " +
			"repotool.yaml): make it in the same run as the shards")
	}
	in := map[string]bool{}
	for _, t := range shard {
		in[t.Name()] = true
	}
	targets := map[string]layout.Target{}
	for _, t := range repo.Targets {
		targets[t.Name()] = t
	}
	byTarget := map[string]*render.Result{}
	var out []*render.Result
	for _, c := range inv.CRDs {
		if in[c.Target] {
			continue // the shard renders its own targets
		}
		res := byTarget[c.Target]
		if res == nil {
			res = &render.Result{Target: targets[c.Target]} // its place in the target order
			byTarget[c.Target] = res
			out = append(out, res)
		}
		res.Objects = append(res.Objects, manifest.Object{APIVersion: c.APIVersion, Kind: "CustomResourceDefinition", Name: c.Name, Template: c.Template,
			Source: manifest.Source{File: c.File, Member: c.Member}, YAML: []byte(c.YAML)})
	}
	return out, nil
}
