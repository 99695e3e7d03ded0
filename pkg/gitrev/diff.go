package gitrev

import (
	"io"
	"io/fs"
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
	fa, err := fsutil.Files(a, nil)
	if err != nil {
		return nil, err
	}
	fb, err := fsutil.Files(b, nil)
	if err != nil {
		return nil, err
	}
	// Both lists sorted, walked side by side: a repository of 100,000 files
	// needs no set of either side's.
	slices.Sort(fa)
	slices.Sort(fb)
	var out []string
	for len(fa) > 0 || len(fb) > 0 {
		switch {
		case len(fb) == 0 || len(fa) > 0 && fa[0] < fb[0]:
			out, fa = append(out, fa[0]), fa[1:]
		case len(fa) == 0 || fb[0] < fa[0]:
			out, fb = append(out, fb[0]), fb[1:]
		default:
			if p := fa[0]; !sameStaged(a, p, staged) && !same(a, b, p) {
				out = append(out, p)
			}
			fa, fb = fa[1:], fb[1:]
		}
	}
	return out, nil
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
