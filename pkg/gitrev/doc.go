// Package gitrev reads revisions of a Git repository in process, with
// go-git: a commit's tree, or the index (what `git commit` would record),
// as a read-only fs.FS that layout, render and lint can load like a
// working tree. Nothing is checked out, no worktree is made and no git
// binary runs. Symbolic links are kept as links (fs.ReadLinkFS), so the
// repository's link rules apply to a revision as they do on disk.
//
// Inside: revisions of a Git repository read in process with go-git
// (`repo.go`), and the one writer, `CommitFiles` (`commit.go`: a branch's
// whole tree as one commit, each file's content asked for as its blob is
// written, none when unchanged, a git note; for hydrate): a commit's tree as a
// read-only `fs.FS` (`tree.go`; links kept, `fs.ReadLinkFS`), the paths two
// commits change, the paths a revision and a working tree differ in
// (`diff.go`, `worktree.go`; by Git blob hash, the two sides compared a folder
// at a time, never listed whole; a file the index's stat cache vouches for, as
// `git status` trusts it, is not read; the index is read once for a `Repo`,
// kept as a sorted list of compact entries with their names in one string
// until `ReleaseIndex` (read again if asked again), and `Ignored` asks the
// same list which files Git tracks: for a path at most 64 ignore patterns
// apply to, after they match it (the folders without patterns remembered up to
// 1,024 at once), so that a work tree whose values files no pattern matches
// never reads the index; with more, or a `.gitignore` over 16 KiB, which a
// pull request may hold, first), Git's index as an `fs.FS`. Folder trees are
// decoded once and kept, in two generations of at most 512 folders each (the
// older let go when the newer is full); sizes are read on demand. No checkout,
// no `git` binary. Every branch name is checked against Git's ref-name rules
// first (`refname.go`, `CheckBranchName`); `Branch` reads a branch's head and
// tree together, and `CommitFiles` commits only on the head the caller read
// (`CommitInfo.Expect`, `ErrMoved`).
package gitrev
