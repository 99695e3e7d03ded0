package hydrate

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/repotool/repotool/pkg/gitrev"
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
	wants := map[string]map[string][]byte{}
	for _, c := range res.clusters() {
		branch := opts.Prefix + c
		prev, err := repo.BranchTree(branch)
		if err != nil {
			return nil, err
		}
		want, rep, err := res.cluster(c).plan(prev, same)
		if err != nil {
			return nil, err
		}
		plans = append(plans, BranchCommit{Branch: branch, Report: rep})
		wants[branch] = want
	}
	for i := range plans {
		p := &plans[i]
		info := gitrev.CommitInfo{Message: msg, Name: opts.Name, Email: opts.Email, When: opts.When, NotesRef: NotesRef, Note: note}
		if p.SHA, p.Committed, err = repo.CommitFiles(p.Branch, wants[p.Branch], info); err != nil {
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
	for _, f := range res.Files {
		add(f.Path)
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
	sub := &Result{Errors: res.Errors, flat: true}
	for _, f := range res.Files {
		if rest, ok := strings.CutPrefix(f.Path, c+"/"); ok {
			sub.Files = append(sub.Files, File{Path: rest, Data: f.Data})
		} else if !strings.Contains(f.Path, "/") {
			sub.Files = append(sub.Files, f)
		}
	}
	for _, d := range res.Kept {
		if rest, ok := strings.CutPrefix(d, c+"/"); ok {
			sub.Kept = append(sub.Kept, rest)
		}
	}
	slices.SortFunc(sub.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return sub
}

// Branches is the output Commit makes, read back: <cluster>/<path> is
// <path> of the branch opts.Prefix + cluster. It is Options.Previous for a
// hydration to branches, so that their Secrets keep their ciphertext.
func Branches(repo *gitrev.Repo, prefix string) fs.FS {
	return &branchesFS{repo: repo, prefix: prefix, trees: map[string]fs.FS{}}
}

type branchesFS struct {
	repo   *gitrev.Repo
	prefix string
	mu     sync.Mutex
	trees  map[string]fs.FS
}

func (b *branchesFS) Open(name string) (fs.File, error) {
	cluster, rest, ok := strings.Cut(name, "/")
	if !fs.ValidPath(name) || !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b.mu.Lock()
	tree, seen := b.trees[cluster]
	if !seen {
		tree, _ = b.repo.BranchTree(b.prefix + cluster)
		b.trees[cluster] = tree
	}
	b.mu.Unlock()
	if tree == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return tree.Open(rest)
}
