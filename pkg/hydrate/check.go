package hydrate

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/repotool/repotool/internal/fsutil"
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
	// Extra are the other entries of a target's folder (files, links,
	// folders), and a target's folder that is a link or lies below one
	// (marked " (a symbolic link)"): a directory source on the folder
	// deploys what it holds, and the hydration would not write them (Sync
	// leaves them alone, and refuses a link).
	Extra []string
}

// Len is the number of files the report lists.
func (r *CheckReport) Len() int { return len(r.Missing) + len(r.Differs) + len(r.Stale) + len(r.Extra) }

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
	want, plan, err := res.plan(prev, sameSealed)
	if err != nil {
		return err
	}
	extra, err := extraEntries(prev, want)
	if err != nil {
		return err
	}
	for _, p := range extra {
		rep.Extra = append(rep.Extra, prefix+p)
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

// extraEntries are the entries of prev's target folders (those of want's
// files, below the root) that want does not hold, sorted.
func extraEntries(prev fs.FS, want contents) ([]string, error) {
	dirs := map[string]bool{}
	for p := range want {
		if d := path.Dir(p); d != "." {
			dirs[d] = true
		}
	}
	var out []string
	for d := range dirs {
		if link, _ := fsutil.LinkOnTheWay(prev, d); link != "" { // one it cannot look at is read below
			out = append(out, link+" (a symbolic link)")
			continue
		}
		entries, err := fs.ReadDir(prev, d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			switch p := d + "/" + e.Name(); {
			case e.Type()&fs.ModeSymlink != 0:
				out = append(out, p+" (a symbolic link)")
			case want[p] == nil:
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
