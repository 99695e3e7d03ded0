package gitrev

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// treeFS is a Git tree as a read-only file system. go-git's trees cache
// lookups without locking, so every operation holds mu: render and lint
// read files from several goroutines.
type treeFS struct {
	mu   sync.Mutex
	repo *git.Repository
	tree *object.Tree
	when time.Time
	// trees are the folders' trees looked up lately, by path: a lookup
	// decodes the folders on its way once, not once per file. It keeps two
	// generations of at most heldTrees each, the older let go when the
	// newer is full: a walk of a large repository holds the folders around
	// it, not every folder it has been through.
	trees, older map[string]*object.Tree
}

// heldTrees bounds a generation of treeFS's folders (a variable for the
// tests). Renderings in chart order read a few dozen folders at a time (a
// chart's, its targets' on every cluster, the clusters' own); 2,048 in
// each generation held 4 to 8 MB of decoded trees for hydrate at 20,000
// targets.
var heldTrees = 512

var (
	_ fs.ReadDirFS  = (*treeFS)(nil)
	_ fs.ReadLinkFS = (*treeFS)(nil)
	_ fs.StatFS     = (*treeFS)(nil)
)

// entry finds name in the tree: its entry (nil for the root) and, for a
// folder, its tree.
func (t *treeFS) entry(op, name string) (*object.TreeEntry, *object.Tree, error) {
	if !fs.ValidPath(name) {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil, t.tree, nil
	}
	parent, err := t.dir(path.Dir(name))
	if err != nil {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	e, err := parent.FindEntry(path.Base(name))
	if err != nil {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if e.Mode == filemode.Dir {
		sub, err := t.dir(name)
		if err != nil {
			return nil, nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		return e, sub, nil
	}
	return e, nil, nil
}

// dir is the tree of the folder p, looked up through the cache.
func (t *treeFS) dir(p string) (*object.Tree, error) {
	if p == "." {
		return t.tree, nil
	}
	if tr, ok := t.trees[p]; ok {
		return tr, nil
	}
	if tr, ok := t.older[p]; ok {
		t.hold(p, tr)
		return tr, nil
	}
	parent, err := t.dir(path.Dir(p))
	if err != nil {
		return nil, err
	}
	e, err := parent.FindEntry(path.Base(p))
	if err != nil {
		return nil, fs.ErrNotExist
	}
	if e.Mode != filemode.Dir {
		return nil, errors.New("not a folder")
	}
	tr, err := object.GetTree(t.repo.Storer, e.Hash)
	if err != nil {
		return nil, err
	}
	t.hold(p, tr)
	return tr, nil
}

// hold keeps the tree of the folder p in the newer generation.
func (t *treeFS) hold(p string, tr *object.Tree) {
	if len(t.trees) >= heldTrees {
		t.older, t.trees = t.trees, nil
	}
	if t.trees == nil {
		t.trees = map[string]*object.Tree{}
	}
	t.trees[p] = tr
}

// blobHash is the Git hash of the file name (not following links), for
// comparing without reading it.
func (t *treeFS) blobHash(name string) (plumbing.Hash, filemode.FileMode, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, sub, err := t.entry("stat", name)
	if err != nil || e == nil || sub != nil {
		return plumbing.ZeroHash, 0, false
	}
	return e.Hash, e.Mode, true
}

func (t *treeFS) Open(name string) (fs.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open(name)
}

// maxLinkHops bounds the links Open follows, as the kernel does.
const maxLinkHops = 40

func (t *treeFS) open(name string) (fs.File, error) {
	name, e, sub, err := t.follow("open", name)
	if err != nil {
		return nil, err
	}
	if sub != nil {
		return &dirFile{fs: t, name: name, tree: sub}, nil
	}
	data, err := readBlob(t.repo, e.Hash, -1)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &blobFile{info: t.info(path.Base(name), e.Mode, int64(len(data))), data: data}, nil
}

// Stat describes name, following links, without reading the file's
// content: its size is read from the object store when asked.
func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	name, e, sub, err := t.follow("stat", name)
	if err != nil {
		return nil, err
	}
	if sub != nil {
		return t.info(path.Base(name), filemode.Dir, 0), nil
	}
	info := t.info(path.Base(name), e.Mode, 0)
	info.sizeOf = t.sizeOf(e.Hash)
	return info, nil
}

// follow finds name in the tree as Open and Stat see it: links followed
// inside the tree (at most maxLinkHops), a submodule refused. It returns the path it ends at, its entry and, for a folder,
// its tree.
func (t *treeFS) follow(op, name string) (string, *object.TreeEntry, *object.Tree, error) {
	for hops := 0; ; hops++ {
		e, sub, err := t.entry(op, name)
		if err != nil {
			return "", nil, nil, err
		}
		switch {
		case sub != nil:
			return name, e, sub, nil
		case e.Mode == filemode.Submodule:
			return "", nil, nil, &fs.PathError{Op: op, Path: name, Err: errors.New("a Git submodule: its content is not in this repository")}
		case e.Mode != filemode.Symlink:
			return name, e, nil, nil
		}
		target, err := t.readLink(name)
		if err != nil {
			return "", nil, nil, err
		}
		resolved := path.Join(path.Dir(name), target)
		if path.IsAbs(target) || !fs.ValidPath(resolved) {
			return "", nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if hops >= maxLinkHops {
			return "", nil, nil, &fs.PathError{Op: op, Path: name, Err: errors.New("too many levels of symbolic links")}
		}
		name = resolved
	}
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, sub, err := t.entry("readdir", name)
	if err != nil {
		return nil, err
	}
	if sub == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	var out []fs.DirEntry
	for _, e := range sub.Entries {
		info := t.info(e.Name, e.Mode, 0)
		if e.Mode.IsFile() {
			info.sizeOf = t.sizeOf(e.Hash)
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Lstat describes name without following a link.
func (t *treeFS) Lstat(name string) (fs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, _, err := t.entry("lstat", name)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return t.info(".", filemode.Dir, 0), nil
	}
	info := t.info(path.Base(name), e.Mode, 0)
	if e.Mode.IsFile() {
		info.sizeOf = t.sizeOf(e.Hash)
	}
	return info, nil
}

// sizeOf returns a function that reads the size of the blob h when asked:
// listing a folder does not open every file in it.
func (t *treeFS) sizeOf(h plumbing.Hash) func() int64 {
	return func() int64 {
		t.mu.Lock()
		defer t.mu.Unlock()
		size, err := t.repo.Storer.EncodedObjectSize(h)
		if err != nil {
			return 0
		}
		return size
	}
}

// ReadLink returns a symbolic link's target.
func (t *treeFS) ReadLink(name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readLink(name)
}

func (t *treeFS) readLink(name string) (string, error) {
	e, _, err := t.entry("readlink", name)
	if err != nil {
		return "", err
	}
	if e == nil || e.Mode != filemode.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := readBlob(t.repo, e.Hash, maxLinkTarget)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(target), nil
}

// info describes an entry: a Git tree records only a mode, so every file
// has the commit's time.
func (t *treeFS) info(name string, mode filemode.FileMode, size int64) *fileInfo {
	m := fs.FileMode(0o644)
	switch mode {
	case filemode.Dir:
		m = fs.ModeDir | 0o755
	case filemode.Executable:
		m = 0o755
	case filemode.Symlink:
		m = fs.ModeSymlink | 0o777
	}
	return &fileInfo{name: name, mode: m, size: size, mod: t.when}
}

type fileInfo struct {
	name   string
	mode   fs.FileMode
	size   int64
	sizeOf func() int64 // when set, the size, read on demand
	mod    time.Time
}

func (i *fileInfo) Name() string { return i.name }
func (i *fileInfo) Size() int64 {
	if i.sizeOf != nil {
		return i.sizeOf()
	}
	return i.size
}
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.mod }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *fileInfo) Sys() any           { return nil }

// blobFile is an open file of a tree.
type blobFile struct {
	info fs.FileInfo
	data []byte
	off  int
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Close() error               { return nil }
func (f *blobFile) Read(p []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += n
	return n, nil
}

// dirFile is an open folder of a tree.
type dirFile struct {
	fs      *treeFS
	name    string
	tree    *object.Tree
	entries []fs.DirEntry
	read    bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) {
	return d.fs.info(path.Base(d.name), filemode.Dir, 0), nil
}
func (d *dirFile) Close() error { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a folder")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		all, err := d.fs.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = all, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}
