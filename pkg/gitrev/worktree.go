package gitrev

import (
	"errors"
	"io/fs"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// WorkTreeDiff is Diff(base, work) for work, the repotool repository's
// folder on disk in this repository's working tree, with Git's stat cache
// as `git status` uses it: a file whose index entry still describes it
// (the same size, type and modification time and, where the system
// records them, change time and inode) and that did not change in the
// same instant the index was written is taken to hold the staged blob;
// when that blob is the base's, the file is not read. Anything else is
// read and hashed, as Diff does.
func (r *Repo) WorkTreeDiff(base, work fs.FS) ([]string, error) {
	cache, err := r.statCache()
	if err != nil {
		return nil, err
	}
	return diff(base, work, func(p string) (plumbing.Hash, filemode.FileMode, bool) {
		e := cache.entries[p]
		if e == nil {
			return plumbing.ZeroHash, 0, false
		}
		info, err := fs.Lstat(work, p)
		if err != nil || !cache.describes(e, info) {
			return plumbing.ZeroHash, 0, false
		}
		return e.Hash, e.Mode, true
	})
}

// statCache is the Git index's record of the working tree's files: the
// entries by path relative to the repotool repository, and when the index
// was written.
type statCache struct {
	entries map[string]*index.Entry
	written time.Time
}

// statCache reads the index. A repository whose index is not a file
// (go-git's in-memory storage) or that has none yet has an empty cache:
// every file is read.
func (r *Repo) statCache() (*statCache, error) {
	out := &statCache{entries: map[string]*index.Entry{}}
	st, ok := r.git.Storer.(*filesystem.Storage)
	if !ok {
		return out, nil
	}
	fi, err := st.Filesystem().Stat("index")
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.written = fi.ModTime()
	idx, err := r.git.Storer.Index()
	if err != nil {
		return nil, err
	}
	for _, e := range idx.Entries {
		if name, ok := r.rel(e.Name); ok {
			out.entries[name] = e
		}
	}
	return out, nil
}

// describes reports whether the index entry e still describes the file
// info: as Git decides a file is unchanged without reading it. A file
// modified no earlier than the index was written is "racily clean" and
// always read: a change in the same clock tick would not show in its
// modification time.
func (c *statCache) describes(e *index.Entry, info fs.FileInfo) bool {
	// Stage 0 is a merged entry as the index file stores it (go-git's
	// Merged constant says 1, which its decoder never gives one).
	if e.Stage != 0 || e.SkipWorktree || e.IntentToAdd {
		return false
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if e.Mode != filemode.Symlink {
			return false
		}
	case info.Mode().IsRegular():
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
			return false
		}
	default:
		return false
	}
	mod := info.ModTime()
	if uint32(info.Size()) != e.Size || !mod.Equal(e.ModifiedAt) || !mod.Before(c.written) {
		return false
	}
	return sameSystemInfo(e, info)
}
