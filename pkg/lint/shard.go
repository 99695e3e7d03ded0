package lint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A sharded run (Options.Shard) lints whole clusters, so the checks across
// a cluster's targets are exact. Two things look further: the CRD
// inventory, which is the whole repository's, and values-unused, which
// judges a values file by every target that uses it, in any cluster. The
// first is made exact here, by rendering the other shards' targets whose
// charts may render a CRD (for their CRDs alone); the second by the merge
// of the shards' reports (merge.go).

// crdCandidates are the targets of all that are not in shard and may
// render a CRD: their chart's templates or files name the kind, or one of
// their values files does (a manifest passed through tpl). A CRD whose
// every mention is inside an encrypted value is not seen.
func crdCandidates(ctx context.Context, r *render.Renderer, files *layout.Files, all, shard []layout.Target) []layout.Target {
	in := map[string]bool{}
	for _, t := range shard {
		in[t.Name()] = true
	}
	type answer struct {
		may bool
		err error
	}
	charts := map[string]answer{} // by folder, each chart loaded once and let go
	var out []layout.Target
	for _, t := range all {
		if in[t.Name()] {
			continue
		}
		a, ok := charts[t.ChartDir]
		if !ok {
			a.may, a.err = r.MayRenderCRDs(ctx, t.ChartDir)
			charts[t.ChartDir] = a
			r.ReleaseChart(t.ChartDir)
		}
		may, err := a.may, a.err
		may = may || slices.ContainsFunc(t.Values, func(v layout.ValueFile) bool {
			data, _ := files.Get(v.Path).Data()
			return bytes.Contains(data, []byte("CustomResourceDefinition"))
		})
		if err == nil && may {
			out = append(out, t)
		}
	}
	return out
}

// otherShardsCRDs renders the CRD candidates of the targets of all outside
// shard, and returns their renderings with the CRDs alone, in order.
func otherShardsCRDs(ctx context.Context, r *render.Renderer, files *layout.Files, all, shard []layout.Target) []*render.Result {
	targets := crdCandidates(ctx, r, files, all, shard)
	out := make([]*render.Result, len(targets))
	r.RenderEachByChart(ctx, targets, func(i int, res *render.Result) { out[i] = crdsOf(res) })
	return slices.DeleteFunc(out, func(res *render.Result) bool { return res == nil || res.Err != nil })
}

// keepTargets keeps the findings about the targets, their Targets narrowed
// to them, and recounts, the suppressed ones too. Findings about no target
// are kept in the first shard only and, with inFolders, only when they are
// about a file in the targets' folders (cluster and namespace folders).
func (r *Result) keepTargets(targets []layout.Target, first, inFolders bool) {
	in := partFilter(targets, first, inFolders)
	keep := func(fs []Finding) []Finding {
		kept := fs[:0]
		for _, f := range fs {
			if in(&f) {
				kept = append(kept, f)
			}
		}
		return kept
	}
	r.Findings = keep(r.Findings)
	r.suppressed = keep(r.suppressed)
	r.Summary.Suppressed = len(r.suppressed)
	r.Count() // what is left of findings in their printed order stays in it
}

// partFilter is keepTargets' test of one finding: whether it belongs to the
// part of targets (first: the part that reports the findings about no
// target; inFolders: only those in the targets' folders), its targets cut
// to the part's when it does (never changing the list it was given).
func partFilter(targets []layout.Target, first, inFolders bool) func(f *Finding) bool {
	names := map[string]bool{}
	var dirs []string
	for _, t := range targets {
		names[t.Name()] = true
		for _, d := range t.Folders() {
			dirs = append(dirs, d+"/")
		}
	}
	return func(f *Finding) bool {
		in := slices.ContainsFunc(f.Targets, func(t string) bool { return names[t] })
		if len(f.Targets) == 0 {
			in = first && (!inFolders || slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(manifest.ParseSource(f.File).File+"/", d) }))
		}
		if in && slices.ContainsFunc(f.Targets, func(t string) bool { return !names[t] }) {
			// A new list: a rule may hand several findings one list.
			f.Targets = slices.DeleteFunc(slices.Clone(f.Targets), func(t string) bool { return !names[t] })
		}
		return in
	}
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

// scope returns the targets Options.Cluster, Namespace and Targets select.
func scope(repo *layout.Repo, opts Options) ([]layout.Target, error) {
	names := map[string]bool{}
	for _, n := range opts.Targets {
		names[n] = true
	}
	named := func(t layout.Target) bool { return opts.Targets == nil || names[t.Name()] }
	if opts.Cluster == "" {
		if opts.Namespace != "" {
			return nil, &ScopeError{"a namespace scope needs its cluster"}
		}
		if opts.Targets == nil && repo.Targets != nil {
			return slices.Clip(repo.Targets), nil // every target: the layout's list, not a copy of it
		}
		out := []layout.Target{}
		for _, t := range repo.Targets {
			if named(t) {
				out = append(out, t)
			}
		}
		return out, nil
	}
	var out []layout.Target
	for _, t := range repo.TargetsOf(opts.Cluster) {
		if (opts.Namespace == "" || t.Namespace == opts.Namespace) && named(t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 && opts.Targets != nil {
		return out, nil // the change affects none of them
	}
	if len(out) == 0 {
		return nil, &ScopeError{fmt.Sprintf("no target %s: run `repotool layout` to list the targets", strings.TrimSuffix(opts.Cluster+"/"+opts.Namespace, "/"))}
	}
	return out, nil
}

// layoutDigest identifies a repository's layout: its configuration file,
// and every target with its chart and values files, in order.
func layoutDigest(repo *layout.Repo) string {
	h := sha256.New()
	if repo.ConfigFile != "" {
		data, _ := repoFiles(repo).Get(repo.ConfigFile).Data()
		h.Write(data)
	}
	for _, t := range repo.Targets {
		fmt.Fprintf(h, "\x00%s %s", t.Name(), t.ChartDir)
		for _, v := range t.Values {
			fmt.Fprintf(h, " %s", v.Path)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
