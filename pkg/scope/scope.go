// Package scope is what a command reads of a repository's revisions, in
// one place: a repository at a revision (Repo.At), the two sides of a
// comparison and the paths between them (LoadSides), the targets a change
// affects and those it leaves to render (Affected, Touched), the previous
// output of a hydration to branches (Repo.Branches), and what the working
// tree holds that Git does not (Repo.Ignored). diff, lint's
// --changed-since and --staged, hydrate and compare ask it; only pkg/gitrev
// below it speaks to Git (go-git). Its errors name revisions and paths,
// never a command's flags: the CLI says which flag gave them.
//
// Inside: revision scope, the one home of what commands read of a repository's
// revisions: `Repo.At` (the repository at a commit, its layout loaded),
// `LoadSides` (`sides.go`: the two sides of a comparison, the base revision
// and the head revision, Git's index or the working tree, with the paths that
// differ, the two layouts holding what they have in common once
// (`layout.Repo.Share`: their targets' equal strings and values lists), the
// first-commit case, and what Git ignores left out of the working tree's
// changes: what `diff`, `lint --changed-since` and `lint --staged` compare;
// the sides load one after the other, through the Git repository the caller
// opened for `Ignored` when it gives one, so that Git's index is read once;
// against the working tree, the paths that differ are found first and Git's
// index let go (`gitrev.Repo.ReleaseIndex`) before either side's layout
// loads), `Branches` (the cluster branches hydrate wrote, read once each with
// their heads: the previous output of a hydration to branches, whose Secrets'
// ciphertext is kept and whose heads a commit must find unmoved), `Affected`
// and `Touched` (the targets a change affects through `layout.Repo.Inputs`,
// the paths Argo CD's refresh uses too, and those left to render;
// `TestRefreshSets` writes the sets `internal/argocdcheck` checks against Argo
// CD's code). diff, lint, hydrate and compare ask it; it speaks to Git through
// `pkg/gitrev`, and `TestGitHasOneDoor` keeps go-git in gitrev and the CLI off
// both. Its errors name revisions, not flags.
package scope

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/layout"
)

// Repo is a repotool repository inside a Git repository (at its root or
// in a sub-folder).
type Repo struct {
	git *gitrev.Repo
}

// Open opens the Git repository that holds dir.
func Open(dir string) (*Repo, error) {
	g, err := gitrev.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{git: g}, nil
}

// Git is the Git repository, for the packages that commit to it (hydrate's
// branches).
func (r *Repo) Git() *gitrev.Repo { return r.git }

// Root is the Git work tree's folder.
func (r *Repo) Root() string { return r.git.Root() }

// Dir is the repotool repository's folder inside the Git repository,
// slash-separated, "" at its root: what paths Git (and GitHub) report are
// relative to, before the repository's own.
func (r *Repo) Dir() string { return r.git.Sub() }

// Revision is the repository at one commit.
type Revision struct {
	// SHA is the commit; Name what it was asked as (a branch, a tag).
	SHA, Name string
	// FS is the repository's files at the commit, read from Git.
	FS fs.FS
	// Layout is the repository's layout at the commit.
	Layout *layout.Repo
}

// At is the repository at the commit rev names, its layout loaded with
// opts. When the commit is there but its layout cannot be loaded, the
// Revision comes back without a Layout, with the error: a caller may
// tell a revision that does not exist from one it cannot compare with.
func (r *Repo) At(ctx context.Context, rev string, opts layout.Options) (*Revision, error) {
	sha, err := r.git.Commit(rev)
	if err != nil {
		return nil, err
	}
	fsys, err := r.git.Revision(sha)
	if err != nil {
		return nil, err
	}
	at := &Revision{SHA: sha, Name: rev, FS: fsys}
	opts.Ignored = nil // a revision holds what Git holds
	if at.Layout, err = layout.Load(ctx, fsys, opts); err != nil {
		return at, fmt.Errorf("the repository at %s: %w", rev, err)
	}
	return at, nil
}

// Changed are the repository's paths that differ between two commits.
func (r *Repo) Changed(base, head string) ([]string, error) { return r.git.Changed(base, head) }

// Subject is the first line of a commit's message.
func (r *Repo) Subject(rev string) (string, error) { return r.git.Subject(rev) }

// Ignored is what Git ignores in the work tree (gitrev.Repo.Ignored), as
// layout.Options.Ignored takes it.
func (r *Repo) Ignored() (func(string) bool, error) { return r.git.Ignored() }

// GitDir is Git's directory inside the repository's folder under another
// name than .git, or "" (gitrev.Repo.GitDir).
func (r *Repo) GitDir() string { return r.git.GitDir() }
