// Package outdir writes the folders repotool's commands own (generate's
// Argo CD objects, hydrate's manifests, render --out-dir's renderings,
// diff --out-dir's markdown parts) one way: a file is rewritten, atomically,
// only when its content changes; only the files its writer names as stale
// are removed, with the folders that leaves empty; and one report says
// what was done. Which files a writer owns, and so may call stale, is the
// writer's rule (a header, a companion file, a name pattern): outdir
// removes nothing else.
package outdir

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/repotool/repotool/internal/fsutil"
)

// File is one file a folder is to hold: its slash-separated path below
// the folder, and its content.
type File struct {
	Path string
	Data []byte
}

// Report says what Apply did (with dry run, would do): paths below the
// folder, slash-separated, sorted.
type Report struct {
	Written, Unchanged, Removed []string
}

// Write makes dir/p hold data, writing it atomically unless it already
// does; it reports whether it wrote.
func Write(dir, p string, data []byte) (bool, error) {
	file := filepath.Join(dir, filepath.FromSlash(p))
	old, err := fsutil.ReadOSFile(file, int64(len(data))+1)
	if err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, fsutil.WriteFileAtomic(file, data)
}

// Remove removes dir/p, then the folders that leaves empty, up to dir
// (never dir itself); it reports whether there was a file to remove.
func Remove(dir, p string) (bool, error) {
	file := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.Remove(file); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	root := filepath.Clean(dir)
	for d := filepath.Dir(file); d != root && len(d) > len(root); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break // not empty
		}
	}
	return true, nil
}

// Apply makes dir hold files: it reads what is there to tell the files
// that differ (Written) from those that do not (Unchanged), and the stale
// paths that are there (Removed) from those already gone, and carries
// that out with Commit. With dryRun nothing is written or removed: the
// report says what would be.
func Apply(dir string, files []File, stale []string, dryRun bool) (*Report, error) {
	rep := &Report{}
	for _, p := range stale {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			rep.Removed = append(rep.Removed, p)
		}
	}
	data := make(map[string][]byte, len(files))
	for _, f := range files {
		data[f.Path] = f.Data
		old, err := fsutil.ReadOSFile(filepath.Join(dir, filepath.FromSlash(f.Path)), int64(len(f.Data))+1)
		if err == nil && bytes.Equal(old, f.Data) {
			rep.Unchanged = append(rep.Unchanged, f.Path)
		} else {
			rep.Written = append(rep.Written, f.Path)
		}
	}
	rep.sorted()
	if dryRun {
		return rep, nil
	}
	return rep, Commit(dir, rep, Lookup(data))
}

// Lookup is Commit's data for files in hand: data[p].
func Lookup(data map[string][]byte) func(p string) ([]byte, error) {
	return func(p string) ([]byte, error) { return data[p], nil }
}

// Commit carries out rep, a plan whose caller has already read what the
// folder holds (so nothing is read again): each file of rep.Written is
// written atomically with its content from data, asked for as it is
// written (a caller need not hold every file at once), each path of
// rep.Removed removed with the folders that leaves empty (Remove);
// rep.Unchanged is left alone. It stops at the first error.
func Commit(dir string, rep *Report, data func(p string) ([]byte, error)) error {
	for _, p := range rep.Written {
		content, err := data(p)
		if err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(p)), content); err != nil {
			return err
		}
	}
	for _, p := range rep.Removed {
		if _, err := Remove(dir, p); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) sorted() *Report {
	slices.Sort(r.Written)
	slices.Sort(r.Unchanged)
	slices.Sort(r.Removed)
	return r
}
