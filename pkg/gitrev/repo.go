package gitrev

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is a Git repository holding a repotool repository, possibly in a
// sub-folder of it.
type Repo struct {
	git *git.Repository
	// sub is the repotool repository's folder inside the Git repository,
	// slash-separated; "" at the root.
	sub string
	// root is the work tree's folder.
	root string
	// index is Git's index as the stat cache, read when first asked for
	// (readIndex) and kept until ReleaseIndex.
	index func() (*statCache, error)
	held  heldIndex
}

// heldIndex is the stat cache as read, until let go.
type heldIndex struct {
	mu    sync.Mutex
	read  bool
	cache *statCache
	err   error
}

// get is the stat cache, read by read when not held.
func (h *heldIndex) get(read func() (*statCache, error)) (*statCache, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.read {
		h.cache, h.err = read()
		h.read = true
	}
	return h.cache, h.err
}

// ReleaseIndex lets go of Git's index as read (a large repository's takes
// some 15 MB: 137,000 entries at 20,000 targets); asked again, it is read
// again.
func (r *Repo) ReleaseIndex() {
	r.held.mu.Lock()
	defer r.held.mu.Unlock()
	r.held.read, r.held.cache, r.held.err = false, nil, nil
}

// IsUnborn reports whether err says a reference does not exist: HEAD of a
// repository with no commit yet, or a branch not created.
func IsUnborn(err error) bool { return errors.Is(err, plumbing.ErrReferenceNotFound) }

// Open opens the Git repository that holds dir (dir itself or a parent).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	g, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a Git repository: %w", dir, err)
	}
	wt, err := g.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	rel, err := filepath.Rel(wt.Filesystem.Root(), abs)
	if err != nil {
		return nil, err
	}
	sub := filepath.ToSlash(rel)
	if sub == "." {
		sub = ""
	}
	r := &Repo{git: g, sub: sub, root: wt.Filesystem.Root()}
	r.index = func() (*statCache, error) { return r.held.get(r.readIndex) }
	return r, nil
}

// rel is a path of the Git repository relative to the repotool
// repository, false when it lies outside.
func (r *Repo) rel(name string) (string, bool) {
	if r.sub == "" {
		return name, true
	}
	return strings.CutPrefix(name, r.sub+"/")
}

// Sub is the repotool repository's folder inside the Git repository ("" at
// its root).
func (r *Repo) Sub() string { return r.sub }

// Root is the work tree's folder, where .git is.
func (r *Repo) Root() string { return r.root }

// Commit resolves rev (a branch, tag, commit or expression such as
// HEAD~1) to a commit hash.
func (r *Repo) Commit(rev string) (string, error) {
	h, err := r.git.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("revision %q: %w", rev, err)
	}
	return h.String(), nil
}

// Revision returns the repotool repository as it is at revision rev.
func (r *Repo) Revision(rev string) (fs.FS, error) {
	hash, err := r.Commit(rev)
	if err != nil {
		return nil, err
	}
	c, err := r.git.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	if r.sub != "" {
		if tree, err = tree.Tree(r.sub); err != nil {
			return nil, fmt.Errorf("revision %q has no folder %s: %w", rev, r.sub, err)
		}
	}
	return &treeFS{repo: r.git, tree: tree, when: c.Committer.When}, nil
}

// Changed lists the repository paths (relative to the repotool
// repository, sorted) that differ between revisions base and head: added,
// removed, modified, or changed in mode; a rename is its two paths.
func (r *Repo) Changed(base, head string) ([]string, error) {
	trees := make([]*object.Tree, 2)
	for i, rev := range []string{base, head} {
		hash, err := r.Commit(rev)
		if err != nil {
			return nil, err
		}
		c, err := r.git.CommitObject(plumbing.NewHash(hash))
		if err != nil {
			return nil, err
		}
		if trees[i], err = c.Tree(); err != nil {
			return nil, err
		}
	}
	changes, err := object.DiffTree(trees[0], trees[1])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ch := range changes {
		for _, name := range []string{ch.From.Name, ch.To.Name} {
			if name == "" {
				continue
			}
			if name, ok := r.rel(name); ok {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// maxLinkTarget bounds what a symbolic link's target is read of (Linux's
// PATH_MAX).
const maxLinkTarget = 4096

// readBlob reads a blob's content: at most limit bytes when limit is not
// negative.
func readBlob(g *git.Repository, h plumbing.Hash, limit int64) ([]byte, error) {
	blob, err := g.BlobObject(h)
	if err != nil {
		return nil, err
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var src io.Reader = rd
	if limit >= 0 {
		src = io.LimitReader(rd, limit)
	}
	return io.ReadAll(src)
}

// Index returns the repotool repository as Git's index has it: what `git
// commit` would record (staged changes, not the working tree's others).
func (r *Repo) Index() (fs.FS, error) {
	idx, err := r.git.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read the Git index: %w", err)
	}
	out := fstest.MapFS{}
	for _, e := range idx.Entries {
		name, ok := r.rel(e.Name)
		if !ok || e.Mode == filemode.Submodule {
			continue
		}
		data, err := readBlob(r.git, e.Hash, -1)
		if err != nil {
			return nil, fmt.Errorf("index entry %s: %w", e.Name, err)
		}
		mode := fs.FileMode(0o644)
		switch e.Mode {
		case filemode.Symlink:
			mode = fs.ModeSymlink | 0o777
		case filemode.Executable:
			mode = 0o755
		}
		out[name] = &fstest.MapFile{Data: data, Mode: mode, ModTime: e.ModifiedAt}
	}
	return out, nil
}

// GitDir is Git's directory relative to the repotool repository's folder
// (slash-separated), when it lies inside that folder under another name
// than .git (a work tree whose .git file points into it); "" otherwise.
func (r *Repo) GitDir() string {
	st, ok := r.git.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return ""
	}
	dir := filepath.Join(r.root, filepath.FromSlash(r.sub))
	rel, err := filepath.Rel(dir, st.Filesystem().Root())
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return ""
	}
	rel = filepath.ToSlash(rel)
	if rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") || strings.HasSuffix(rel, "/.git") {
		return "" // withheld by name
	}
	return rel
}
