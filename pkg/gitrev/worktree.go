package gitrev

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
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
	cache, err := r.index()
	if err != nil {
		return nil, err
	}
	return diff(base, work, func(p string) (plumbing.Hash, filemode.FileMode, bool) {
		e, ok := cache.entry(p)
		if !ok {
			return plumbing.ZeroHash, 0, false
		}
		info, err := fs.Lstat(work, p)
		if err != nil || !cache.describes(e, info) {
			return plumbing.ZeroHash, 0, false
		}
		return e.hash, e.mode, true
	})
}

// statCache is the Git index's record of the working tree's files: the
// entries by path relative to the repotool repository, and when the index
// was written. Ignored asks it which files Git tracks.
type statCache struct {
	entries []statEntry // sorted by name, as Git's index is
	// names holds every entry's name, one after another: one string for
	// the 137,000 names of a large repository's index, not one each.
	names   string
	written time.Time
}

// name is e's path.
func (c *statCache) name(e *statEntry) string { return c.names[e.off : e.off+e.n] }

// entry is the entry of p: the first, where a conflict gives several.
func (c *statCache) entry(p string) (statEntry, bool) {
	i, ok := slices.BinarySearchFunc(c.entries, p, func(e statEntry, p string) int { return strings.Compare(c.name(&e), p) })
	if !ok {
		return statEntry{}, false
	}
	return c.entries[i], true
}

// sort orders the entries by name; Git writes the index so already.
func (c *statCache) sort() {
	byName := func(a, b statEntry) int { return strings.Compare(c.name(&a), c.name(&b)) }
	if !slices.IsSortedFunc(c.entries, byName) {
		slices.SortStableFunc(c.entries, byName)
	}
}

// statEntry is what the stat cache keeps of an index entry: 64 bytes, in
// a list, where go-git's Entry takes some 130 and its name as many again
// (a repository of 100,000 files has as many).
type statEntry struct {
	off, n       uint32 // the name, in statCache.names
	hash         plumbing.Hash
	mode         filemode.FileMode
	size, inode  uint32
	mtime, ctime int64 // Unix nanoseconds
	// merged is an entry of stage 0, neither skip-worktree nor
	// intent-to-add: the only entries that can describe a file.
	merged bool
}

func newStatEntry(off, n uint32, e *index.Entry) statEntry {
	// Stage 0 is a merged entry as the index file stores it (go-git's
	// Merged constant says 1, which its decoder never gives one).
	return statEntry{off: off, n: n, hash: e.Hash, mode: e.Mode, size: e.Size, inode: e.Inode, mtime: e.ModifiedAt.UnixNano(),
		ctime: e.CreatedAt.UnixNano(), merged: e.Stage == 0 && !e.SkipWorktree && !e.IntentToAdd}
}

// readIndex reads the index, once for a Repo (Repo.index). A repository
// whose index is not a file (go-git's in-memory storage) or that has none
// yet has an empty cache: every file is read.
func (r *Repo) readIndex() (*statCache, error) {
	out := &statCache{}
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
	var total int64
	for _, e := range idx.Entries {
		if name, ok := r.rel(e.Name); ok {
			total += int64(len(name))
		}
	}
	if total > math.MaxUint32 || int64(int(total)) != total {
		return nil, fmt.Errorf("the Git index names %d bytes of paths, more than repotool reads (4 GiB)", total)
	}
	var names strings.Builder
	names.Grow(int(total))
	out.entries = make([]statEntry, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		if name, ok := r.rel(e.Name); ok {
			out.entries = append(out.entries, newStatEntry(uint32(names.Len()), uint32(len(name)), e))
			names.WriteString(name)
		}
	}
	out.names = names.String()
	out.sort()
	return out, nil
}

// describes reports whether the index entry e still describes the file
// info: as Git decides a file is unchanged without reading it. A file
// modified no earlier than the index was written is "racily clean" and
// always read: a change in the same clock tick would not show in its
// modification time.
func (c *statCache) describes(e statEntry, info fs.FileInfo) bool {
	if !e.merged {
		return false
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if e.mode != filemode.Symlink {
			return false
		}
	case info.Mode().IsRegular():
		if e.mode != filemode.Regular && e.mode != filemode.Executable {
			return false
		}
	default:
		return false
	}
	mod := info.ModTime()
	if uint32(info.Size()) != e.size || mod.UnixNano() != e.mtime || !mod.Before(c.written) {
		return false
	}
	return sameSystemInfo(e, info)
}
