package scope

import (
	"io/fs"
	"strings"
	"sync"

	"github.com/repotool/repotool/pkg/gitrev"
)

// Branches are the cluster branches prefix + cluster, the previous output
// of a hydration to branches, read back as one fs.FS: <cluster>/<path> is
// <path> of the cluster's branch. Each branch is read once and its head
// recorded (Head), so that a commit can be made only on the head that was
// read: concurrent hydrations make one commit, not one each with Secrets
// encrypted anew.
func (r *Repo) Branches(prefix string) *Branches {
	return &Branches{repo: r.git, prefix: prefix, trees: map[string]branchRead{}}
}

// Branches is the cluster branches as one fs.FS (see Repo.Branches).
type Branches struct {
	repo   *gitrev.Repo
	prefix string
	mu     sync.Mutex
	trees  map[string]branchRead
}

// branchRead is one branch as it was read: its head and tree.
type branchRead struct {
	head string
	tree fs.FS
	err  error
}

// Prefix is the prefix the branches are named with.
func (b *Branches) Prefix() string { return b.prefix }

// Tree is cluster's branch as it was read, nil when it does not exist.
func (b *Branches) Tree(cluster string) (fs.FS, error) {
	r := b.read(cluster)
	return r.tree, r.err
}

// read reads cluster's branch once.
func (b *Branches) read(cluster string) branchRead {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, seen := b.trees[cluster]
	if !seen {
		r.head, r.tree, r.err = b.repo.Branch(b.prefix + cluster)
		b.trees[cluster] = r
	}
	return r
}

// Head is the head cluster's branch had when it was read, false when it
// was not read.
func (b *Branches) Head(cluster string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, seen := b.trees[cluster]
	return r.head, seen && r.err == nil
}

func (b *Branches) Open(name string) (fs.File, error) {
	cluster, rest, ok := strings.Cut(name, "/")
	if !ok {
		rest = "." // a branch's root
	}
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	r := b.read(cluster)
	if r.err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: r.err}
	}
	if r.tree == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return r.tree.Open(rest)
}
