package diff

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
)

// A large change can be compared in parts, one CI job each (RunShard with
// Options.Shard), and the parts merged into what one run reports (Merge):
// every part works out the same affected targets, compares those of its
// clusters, and the first part compares the generated Argo CD objects.

// ShardReportVersion is the version of ShardReport's JSON.
const ShardReportVersion = 1

// ShardReport is one part's comparison, for Merge: the result (never a
// secret value: what diff prints) with what its JSON leaves out.
type ShardReport struct {
	Version int            `json:"version"`
	Shard   string         `json:"shard"`
	Result  *change.Result `json:"result"`
	// ChangeKeys and ArgoKeys are the keys of Result.Changes and
	// Result.ArgoCD, in order.
	ChangeKeys []manifest.Key `json:"changeKeys"`
	ArgoKeys   []manifest.Key `json:"argoKeys"`
	// ErrorTargets is the target of each of the first of Result.Errors;
	// the others are about the generated objects.
	ErrorTargets []string `json:"errorTargets"`
	// Base and Head are Result's names of the revisions, for the merge.
	Base string `json:"base"`
	Head string `json:"head"`
}

// RunShard is Run for the part opts.Shard, as a report for Merge.
func RunShard(ctx context.Context, base, head *layout.Repo, changed []string, opts Options) (*ShardReport, error) {
	res, errorTargets, err := run(ctx, base, head, changed, opts)
	if err != nil {
		return nil, err
	}
	sh := opts.Shard
	if sh.N < 1 {
		sh = layout.Shard{I: 1, N: 1}
	}
	r := &ShardReport{Version: ShardReportVersion, Shard: sh.String(), Result: res, ErrorTargets: slices.Clip(errorTargets), Base: res.Base, Head: res.Head}
	for _, c := range res.Changes {
		r.ChangeKeys = append(r.ChangeKeys, c.Key)
	}
	for _, c := range res.ArgoCD {
		r.ArgoKeys = append(r.ArgoKeys, c.Key)
	}
	return r, nil
}

// ParseShardReport reads a ShardReport's JSON.
func ParseShardReport(data []byte) (*ShardReport, error) {
	var r ShardReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a diff shard report: %w", err)
	}
	if r.Version != ShardReportVersion {
		return nil, fmt.Errorf("diff shard report version %d, want %d: make it with the repotool that reads it", r.Version, ShardReportVersion)
	}
	if _, err := layout.ParseShard(r.Shard); err != nil {
		return nil, err
	}
	if r.Result == nil || len(r.ChangeKeys) != len(r.Result.Changes) || len(r.ArgoKeys) != len(r.Result.ArgoCD) || len(r.ErrorTargets) > len(r.Result.Errors) {
		return nil, fmt.Errorf("diff shard report %s is incomplete: make it again", r.Shard)
	}
	return &r, nil
}

// Merge makes one comparison of the reports of every part of a change
// (each part once, all of one count, all of the same affected targets):
// what Run reports for the whole change.
func Merge(reports []*ShardReport) (*change.Result, error) {
	first, err := checkParts(reports)
	if err != nil {
		return nil, err
	}
	f := first.Result
	out := &change.Result{Base: first.Base, Head: first.Head, NotDecrypted: f.NotDecrypted, Targets: f.Targets, Changes: []change.Change{},
		ArgoCD: keyed(f.ArgoCD, first.ArgoKeys), Warnings: f.Warnings}
	at := map[string]int{}
	for i, t := range f.Targets {
		at[t.Name] = i
	}
	type targetError struct{ target, err string }
	var errs []targetError
	for _, r := range reports {
		out.Changes = append(out.Changes, keyed(r.Result.Changes, r.ChangeKeys)...)
		out.Hidden = append(out.Hidden, r.Result.Hidden...)
		for i, t := range r.ErrorTargets {
			errs = append(errs, targetError{t, r.Result.Errors[i]})
		}
	}
	// Each target's changes, hidden objects and errors come from one part,
	// in its order: sorting by target puts them where one run has them.
	slices.SortStableFunc(out.Changes, func(a, b change.Change) int { return cmp.Compare(at[a.Target], at[b.Target]) })
	slices.SortStableFunc(out.Hidden, func(a, b change.Hidden) int { return cmp.Compare(at[a.Target], at[b.Target]) })
	slices.SortStableFunc(errs, func(a, b targetError) int { return cmp.Compare(at[a.target], at[b.target]) })
	for _, e := range errs {
		out.Errors = append(out.Errors, e.err)
	}
	out.Errors = append(out.Errors, f.Errors[len(first.ErrorTargets):]...)
	return out, nil
}

// keyed is changes with their keys.
func keyed(changes []change.Change, keys []manifest.Key) []change.Change {
	out := slices.Clone(changes)
	for i := range out {
		out[i].Key = keys[i]
	}
	return out
}

// checkParts refuses reports that are not every part of one comparison
// once, and returns the first part's.
func checkParts(reports []*ShardReport) (*ShardReport, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("no diff shard reports to merge")
	}
	seen := map[int]*ShardReport{}
	n := 0
	for _, r := range reports {
		sh, err := layout.ParseShard(r.Shard)
		if err != nil {
			return nil, err
		}
		switch {
		case n != 0 && sh.N != n:
			return nil, fmt.Errorf("diff shard %s is of a run in %d parts, the others of one in %d", r.Shard, sh.N, n)
		case seen[sh.I] != nil:
			return nil, fmt.Errorf("diff shard %s is given twice", r.Shard)
		}
		n, seen[sh.I] = sh.N, r
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if seen[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("diff shard %s is missing: merge the reports of every part", strings.Join(missing, ", "))
	}
	for _, r := range reports {
		if !reflect.DeepEqual(r.Result.Targets, seen[1].Result.Targets) || r.Base != seen[1].Base || r.Head != seen[1].Head {
			return nil, fmt.Errorf("diff shard %s compared another change than shard 1/%d (other revisions or another repository): "+
				"merge the parts of one run", r.Shard, n)
		}
	}
	return seen[1], nil
}

// shardTargets are the targets of the clusters in sh.
func shardTargets(targets []change.Target, sh layout.Shard) []change.Target {
	if sh.N <= 1 {
		return targets
	}
	cluster := func(name string) string { c, _, _ := strings.Cut(name, "/"); return c }
	var clusters []string
	for _, t := range targets {
		clusters = append(clusters, cluster(t.Name))
	}
	slices.Sort(clusters)
	clusters = slices.Compact(clusters)
	var out []change.Target
	for _, t := range targets {
		if i, _ := slices.BinarySearch(clusters, cluster(t.Name)); i%sh.N+1 == sh.I {
			out = append(out, t)
		}
	}
	return out
}
