package hydrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/scope"
)

// NotesRef is where Argo CD's hydrator keeps its git notes
// (commitserver/commit: NoteNamespace "hydrator.metadata").
const NotesRef = "refs/notes/hydrator.metadata"

// BranchOptions are the commits Commit makes.
type BranchOptions struct {
	// Prefix makes each cluster's branch: Prefix + cluster.
	Prefix string
	// DrySHA and Subject are the dry commit's hash and subject line, for
	// the commit message ("<sha7>: <subject>", as Argo CD's default
	// template begins) and the note.
	DrySHA, Subject string
	Name, Email     string
	When            time.Time
	// Previous is what the hydration read the branches' previous content
	// from (Options.Previous): a branch it read is committed to only if it
	// has not moved since.
	Previous *scope.Branches
}

// BranchCommit is one cluster's branch after Commit.
type BranchCommit struct {
	Branch, SHA string
	// Committed is false when the branch already held these files: only
	// the note was added.
	Committed bool
	Report    *SyncReport
}

// Commit commits res to one local branch per cluster, opts.Prefix +
// cluster, holding that cluster's <namespace>/manifest.yaml, README.md
// and hydrator.metadata and the root's hydrator.metadata and
// .gitattributes, decided as Sync decides a folder (companions only with
// their manifest, removed targets' files gone, kept targets' files as the
// branch has them). A branch whose tree would not change gets no commit;
// every branch's commit gets the note {"drySha": ...} under NotesRef, as
// Argo CD's hydrator adds it. Each branch moves all at once or not at
// all; nothing is pushed. While res has errors nothing is committed.
func (res *Result) Commit(repo *gitrev.Repo, opts BranchOptions) ([]BranchCommit, error) {
	note, err := json.Marshal(struct {
		DrySHA string `json:"drySha"`
	}{opts.DrySHA})
	if err != nil {
		return nil, err
	}
	msg := opts.DrySHA[:min(7, len(opts.DrySHA))] + ": " + opts.Subject + "\n\nDry-SHA: " + opts.DrySHA + "\n"
	var plans []BranchCommit
	wants := map[string]contents{}
	expect := map[string]*string{}
	for _, c := range res.clusters() {
		branch := opts.Prefix + c
		head, prev, err := repo.Branch(branch)
		if err != nil {
			return nil, err
		}
		if opts.Previous != nil {
			if read, ok := opts.Previous.Head(c); ok {
				if head != read {
					return nil, gitrev.Moved(branch) // before any branch moves
				}
				expect[branch] = &read
			}
		}
		want, rep, err := res.cluster(c).plan(prev, nil)
		if err != nil {
			return nil, err
		}
		plans = append(plans, BranchCommit{Branch: branch, Report: rep})
		wants[branch] = want
	}
	for i := range plans {
		p := &plans[i]
		info := gitrev.CommitInfo{Message: msg, Name: opts.Name, Email: opts.Email, When: opts.When, NotesRef: NotesRef, Note: note}
		info.Expect = expect[p.Branch]
		want := wants[p.Branch]
		if p.SHA, p.Committed, err = repo.CommitFiles(p.Branch, slices.Sorted(maps.Keys(want)), want.read, info); err != nil {
			return plans[:i], err
		}
	}
	return plans, nil
}

// clusters are the clusters res has files or kept targets of, sorted.
func (res *Result) clusters() []string {
	var out []string
	add := func(p string) {
		if c, _, ok := strings.Cut(p, "/"); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, f := range res.files {
		add(res.path(f))
	}
	for _, d := range res.Kept {
		add(d)
	}
	slices.Sort(out)
	return out
}

// cluster is the part of res for cluster c, its paths below c's folder,
// with the root's files.
func (res *Result) cluster(c string) *Result {
	sub := &Result{Errors: res.Errors, names: res.names, blobs: res.blobs, flat: true}
	for _, f := range res.files {
		d := res.dirs[f.dir]
		if d == c || strings.HasPrefix(d, c+"/") {
			d = strings.TrimPrefix(d[len(c):], "/")
		} else if d != "" {
			continue
		}
		f.dir = sub.dirIndex(d)
		sub.files = append(sub.files, f)
	}
	for _, d := range res.Kept {
		if rest, ok := strings.CutPrefix(d, c+"/"); ok {
			sub.Kept = append(sub.Kept, rest)
		}
	}
	slices.SortFunc(sub.files, sub.compare)
	return sub
}

// CheckPrefix refuses a branch prefix that makes, with one of repo's
// clusters, a name Git would not accept as a branch (a/../b, a space, a
// component starting with "."): go-git would write the reference anyway,
// where Git ignores it or outside refs/heads.
func CheckPrefix(repo *layout.Repo, prefix string) error {
	if prefix == "" {
		return errors.New("--branch needs a prefix for the cluster branches (hydrated/, say)")
	}
	for _, c := range repo.Clusters {
		if err := gitrev.CheckBranchName(prefix + c.Name); err != nil {
			return fmt.Errorf("--branch %q makes the branch of cluster %s: %w", prefix, c.Name, err)
		}
	}
	return nil
}
