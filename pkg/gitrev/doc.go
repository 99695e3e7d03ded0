// Package gitrev reads revisions of a Git repository in process, with
// go-git: a commit's tree, or the index (what `git commit` would record),
// as a read-only fs.FS that layout, render and lint can load like a
// working tree. Nothing is checked out, no worktree is made and no git
// binary runs. Symbolic links are kept as links (fs.ReadLinkFS), so the
// repository's link rules apply to a revision as they do on disk.
package gitrev
