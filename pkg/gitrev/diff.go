package gitrev

import (
	"cmp"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repotool/repotool/internal/fsutil"
)

// Diff lists the paths (sorted) whose content or link target differs
// between two file systems, or that only one of them has: how a revision
// compares with a working tree. Hidden folders (.git, ...) and
// node_modules are left out, as layout leaves them out.
func Diff(a, b fs.FS) ([]string, error) {
	return diff(a, b, nil)
}

// diff is Diff; staged, when not nil, tells b's Git hash and mode of a
// path when they are known without reading the file (see WorkTreeDiff).
func diff(a, b fs.FS, staged func(p string) (plumbing.Hash, filemode.FileMode, bool)) ([]string, error) {
	w := &differ{a: a, b: b, staged: staged}
	if err := w.dir(".", true, true); err != nil {
		return nil, err
	}
	slices.Sort(w.out)
	return w.out, nil
}

// differ compares two file systems a folder at a time: a repository of
// 100,000 files costs the entries of the folders being compared, not a
// list of every path on each side.
type differ struct {
	a, b   fs.FS
	staged func(p string) (plumbing.Hash, filemode.FileMode, bool)
	out    []string
}

// dir compares the folder p, which a has when inA and b when inB. The
// folders fsutil.IgnoredDir names are left out; a link is a file, never
// followed.
func (w *differ) dir(p string, inA, inB bool) error {
	var ea, eb []fs.DirEntry
	var err error
	if inA {
		if ea, err = fs.ReadDir(w.a, p); err != nil {
			return err
		}
	}
	if inB {
		if eb, err = fs.ReadDir(w.b, p); err != nil {
			return err
		}
	}
	// Both lists are sorted by name (fs.ReadDir sorts them).
	for len(ea) > 0 || len(eb) > 0 {
		var da, db fs.DirEntry
		switch {
		case len(eb) == 0 || len(ea) > 0 && ea[0].Name() < eb[0].Name():
			da, ea = ea[0], ea[1:]
		case len(ea) == 0 || eb[0].Name() < ea[0].Name():
			db, eb = eb[0], eb[1:]
		default:
			da, db, ea, eb = ea[0], eb[0], ea[1:], eb[1:]
		}
		if err := w.entry(p, da, db); err != nil {
			return err
		}
	}
	return nil
}

// entry compares one name of folder p: da is a's entry, db b's, nil where
// a side has none.
func (w *differ) entry(p string, da, db fs.DirEntry) error {
	name := cmp.Or(da, db).Name()
	full := path.Join(p, name)
	dirA, dirB := da != nil && da.IsDir(), db != nil && db.IsDir()
	fileA, fileB := da != nil && !dirA, db != nil && !dirB
	switch {
	case fileA && fileB:
		if !sameStaged(w.a, full, w.staged) && !same(w.a, w.b, full) {
			w.out = append(w.out, full)
		}
	case fileA || fileB:
		w.out = append(w.out, full) // on one side, or a file on one and a folder on the other
	}
	if (dirA || dirB) && !fsutil.IgnoredDir(name) {
		return w.dir(full, dirA, dirB)
	}
	return nil
}

// sameStaged reports whether p is known to be the same without reading
// it: a's Git hash is the one staged says b's file has, and both or
// neither are links.
func sameStaged(a fs.FS, p string, staged func(p string) (plumbing.Hash, filemode.FileMode, bool)) bool {
	ta, ok := a.(*treeFS)
	if !ok || staged == nil {
		return false
	}
	h, mode, ok := staged(p)
	if !ok {
		return false
	}
	ha, ma, ok := ta.blobHash(p)
	return ok && ha == h && (ma == filemode.Symlink) == (mode == filemode.Symlink)
}

// same reports whether p is the same in both: the same link target, or
// the same content. A side that is a Git tree is compared by the Git
// hash, without reading the blob.
func same(a, b fs.FS, p string) bool {
	ta, okA := a.(*treeFS)
	tb, okB := b.(*treeFS)
	if okA && okB {
		ha, ma, okA := ta.blobHash(p)
		hb, mb, okB := tb.blobHash(p)
		return okA && okB && ha == hb && (ma == filemode.Symlink) == (mb == filemode.Symlink)
	}
	if okB && !okA {
		a, b, ta = b, a, tb
		okA = true
	}
	if okA {
		if h, mode, ok := ta.blobHash(p); ok {
			if mode == filemode.Symlink {
				target, err := fs.ReadLink(b, p)
				return err == nil && plumbing.ComputeHash(plumbing.BlobObject, []byte(target)) == h
			}
			if _, err := fs.ReadLink(b, p); err == nil {
				return false // a link on one side only
			}
			got, err := blobHashOf(b, p)
			return err == nil && got == h
		}
	}
	la, errA := fs.ReadLink(a, p)
	lb, errB := fs.ReadLink(b, p)
	if errA == nil || errB == nil {
		return errA == nil && errB == nil && la == lb
	}
	da, errA := blobHashOf(a, p)
	db, errB := blobHashOf(b, p)
	return errA == nil && errB == nil && da == db
}

// blobHashOf is the Git blob hash of the regular file p of fsys, read as a
// stream: a file that is not regular is never opened, and one of any size
// costs no more memory than a small one. (A file that cannot be read is
// taken as changed, so that what reads it next reports it.)
func blobHashOf(fsys fs.FS, p string) (plumbing.Hash, error) {
	f, err := fsutil.Open(fsys, p)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := plumbing.NewHasher(plumbing.BlobObject, st.Size())
	if _, err := io.Copy(h, f); err != nil {
		return plumbing.ZeroHash, err
	}
	return h.Sum(), nil
}
