package hydrate

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/repotool/repotool/pkg/scope"
)

// CheckReport is how an output differs from a hydration, paths relative
// to the output (for branches, "<branch>:<path>"), sorted.
type CheckReport struct {
	// Missing are files the hydration makes that the output lacks.
	Missing []string
	// Differs are files the output holds with other content.
	Differs []string
	// Stale are files of targets that are gone (Argo CD 3.3 and later
	// no longer clean them): Sync would remove them.
	Stale []string
}

// Len is the number of files the report lists.
func (r *CheckReport) Len() int { return len(r.Missing) + len(r.Differs) + len(r.Stale) }

// Check is Sync without writing or removing anything, against out, the
// output as it stands: an output hydrated from the same commit has
// nothing to report; one that was edited, pushed to by hand or left with
// the files of a removed target has. cluster, when not "", says out is a
// checkout of that cluster's branch (its target folders at the root:
// Recording.Cluster), checked against that cluster's part of res.
// SealedSecrets compare by what can be read of them: their scope, their
// template and the keys they seal, not their ciphertext, which only the
// cluster can open.
func (res *Result) Check(out fs.FS, cluster string) (*CheckReport, error) {
	r := res
	if cluster != "" {
		if !slices.Contains(res.clusters(), cluster) {
			return nil, fmt.Errorf("the dry commit has no target of cluster %s", cluster)
		}
		r = res.cluster(cluster)
	}
	rep := &CheckReport{}
	return rep, r.check(out, "", rep)
}

// CheckBranches checks each cluster's branch as b reads it, as Check
// checks a checkout of it; a branch that does not exist has every file
// missing.
func (res *Result) CheckBranches(b *scope.Branches) (*CheckReport, error) {
	rep := &CheckReport{}
	for _, c := range res.clusters() {
		tree, err := b.Tree(c)
		if err != nil {
			return nil, err
		}
		if tree == nil {
			tree = emptyFS{}
		}
		if err := res.cluster(c).check(tree, b.Prefix()+c+":", rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// check adds how prev differs from res to rep, each path prefixed.
func (res *Result) check(prev fs.FS, prefix string, rep *CheckReport) error {
	_, plan, err := res.plan(prev, sameSealed)
	if err != nil {
		return err
	}
	for _, p := range plan.Written {
		if _, err := fs.Stat(prev, p); errors.Is(err, fs.ErrNotExist) {
			rep.Missing = append(rep.Missing, prefix+p)
		} else {
			rep.Differs = append(rep.Differs, prefix+p)
		}
	}
	for _, p := range plan.Removed {
		rep.Stale = append(rep.Stale, prefix+p)
	}
	return nil
}
