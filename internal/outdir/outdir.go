// Package outdir writes the folders repotool's commands own (generate's
// Argo CD objects, hydrate's manifests, render --out-dir's renderings,
// diff --out-dir's markdown parts) one way: a file is rewritten, atomically,
// only when its content changes; only the files its writer names as stale
// are removed, with the folders that leaves empty; and one report says
// what was done. Which files a writer owns, and so may call stale, is the
// writer's rule (a header, a companion file, a name pattern): outdir
// removes nothing else.
//
// Inside: the one writer of the output folders the commands own: generate's
// Argo CD objects (`argocd.Sync`), hydrate's manifests
// (`hydrate.Result.Sync`), `render --out-dir` (`render.Renderer.WriteDir`) and
// `diff --out-dir`'s markdown parts (`output.WriteParts`). `Write` rewrites a
// file atomically only when its content changes, `Remove` removes a file and
// the folders that leaves empty (never the folder itself), `Apply` reads the
// folder to plan and `Commit` carries out a plan (a `Report`) whose writer has
// already read the folder, so that nothing is read twice, asking for each
// file's content as it writes it (`Lookup` for files in hand)
// (`hydrate.SyncReport` and `argocd.SyncReport` are that report). Which files
// a writer owns, and may call stale, stays the writer's rule (Argo CD objects
// by their header, hydrate's folders by their hydrator.metadata, parts by
// their name). Nothing below the folder is written, read or removed through a
// symbolic link (`ErrLink`, checked for a whole plan before anything is
// written): a hydrated folder kept in the repository is content a change can
// edit.
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

// ErrLink is wrapped by the error about a symbolic link below a folder
// repotool owns: it writes, reads and removes nothing through one, so
// that a link a change put there (to a folder outside, to a chart) never
// takes its files elsewhere.
var ErrLink = errors.New("is a symbolic link: a folder repotool writes holds none below it; remove the link")

// below is dir/p, an error wrapping ErrLink when a folder or file on the
// way below dir is a symbolic link (dir itself may be one: the operator
// named it). What does not exist yet is made as a folder by the writer.
func below(dir, p string) (string, error) {
	link, err := fsutil.LinkOnTheWay(os.DirFS(dir), p)
	if err != nil {
		return "", err
	}
	if link != "" {
		return "", &fs.PathError{Op: "write", Path: filepath.Join(dir, filepath.FromSlash(link)), Err: ErrLink}
	}
	return filepath.Join(dir, filepath.FromSlash(p)), nil
}

// Write makes dir/p hold data, writing it atomically unless it already
// does; it reports whether it wrote.
func Write(dir, p string, data []byte) (bool, error) {
	file, err := below(dir, p)
	if err != nil {
		return false, err
	}
	old, err := fsutil.ReadOSFile(file, int64(len(data))+1)
	if err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, fsutil.WriteFileAtomic(file, data)
}

// Remove removes dir/p, then the folders that leaves empty, up to dir
// (never dir itself); it reports whether there was a file to remove.
func Remove(dir, p string) (bool, error) {
	file, err := below(dir, p)
	if err != nil {
		return false, err
	}
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
		file, err := below(dir, p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Lstat(file); err == nil {
			rep.Removed = append(rep.Removed, p)
		}
	}
	data := make(map[string][]byte, len(files))
	for _, f := range files {
		data[f.Path] = f.Data
		file, err := below(dir, f.Path)
		if err != nil {
			return nil, err
		}
		old, err := fsutil.ReadOSFile(file, int64(len(f.Data))+1)
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
// rep.Unchanged is left alone. A symbolic link on the way to any of them
// (ErrLink) fails it before anything is written; it stops at the first
// error.
func Commit(dir string, rep *Report, data func(p string) ([]byte, error)) error {
	for _, list := range [][]string{rep.Written, rep.Removed} {
		for _, p := range list {
			if _, err := below(dir, p); err != nil {
				return err // before anything is written
			}
		}
	}
	for _, p := range rep.Written {
		content, err := data(p)
		if err != nil {
			return err
		}
		file, err := below(dir, p)
		if err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(file, content); err != nil {
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
