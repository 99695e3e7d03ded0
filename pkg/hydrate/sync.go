package hydrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
)

// SyncReport says what Sync did, paths relative to the folder.
type SyncReport struct {
	Written, Unchanged, Removed []string
}

// ErrFailedTargets is wrapped by Sync's error when the Result has errors:
// nothing was written.
var ErrFailedTargets = errors.New("targets failed to hydrate")

// Sync writes res into dir: each file whose content changed (atomically),
// then removes the hydrate files (manifest.yaml, README.md and
// hydrator.metadata in a <cluster>/<namespace> folder) of targets res no
// longer has, and the folders that leaves empty. Other files are left
// alone. As Argo CD's hydrator (3.3 and later) does, a target's README.md
// and hydrator.metadata are rewritten only with its manifest.yaml, and the
// root's hydrator.metadata only when some manifest changed or went: a new
// dry commit that changes no manifest changes no file. While res has
// errors it writes and removes nothing: a target that failed must not look
// like one that is gone.
func (res *Result) Sync(dir string) (*SyncReport, error) { return res.sync(dir, false) }

// Check is Sync without writing or removing anything: its report lists
// the files Sync would write (they differ from the output's, or are
// missing) and remove (stale). An output hydrated from the same commit has
// none; one that was edited, pushed to by hand or left with the files of a
// removed target (Argo CD 3.3 and later no longer clean them) has some.
func (res *Result) Check(dir string) (*SyncReport, error) { return res.sync(dir, true) }

func (res *Result) sync(dir string, dry bool) (*SyncReport, error) {
	if len(res.Errors) > 0 {
		return nil, fmt.Errorf("%w (%d): nothing was written to %s", ErrFailedTargets, len(res.Errors), dir)
	}
	rep := &SyncReport{}
	keep := map[string]bool{}
	for _, d := range res.Kept {
		for _, name := range []string{ManifestFile, ReadmeFile, MetadataFile} {
			keep[d+"/"+name] = true
		}
	}
	changed := map[string]bool{} // folders whose manifest.yaml changed
	var companions []File
	for _, f := range res.Files {
		keep[f.Path] = true
		if name := path.Base(f.Path); name != ManifestFile && f.Path != GitAttributesFile {
			companions = append(companions, f)
			continue
		}
		same, err := write(dir, f, false, dry)
		if err != nil {
			return rep, err
		}
		if same {
			rep.Unchanged = append(rep.Unchanged, f.Path)
			continue
		}
		changed[path.Dir(f.Path)] = f.Path != GitAttributesFile
		rep.Written = append(rep.Written, f.Path)
	}
	stale, err := staleFiles(dir, keep)
	if err != nil {
		return rep, err
	}
	anyChange := len(stale) > 0
	for d, c := range changed {
		anyChange = anyChange || c && d != "."
	}
	for _, f := range companions {
		d := path.Dir(f.Path)
		same, err := write(dir, f, !changed[d] && !(d == "." && anyChange), dry)
		if err != nil {
			return rep, err
		}
		if same {
			rep.Unchanged = append(rep.Unchanged, f.Path)
		} else {
			rep.Written = append(rep.Written, f.Path)
		}
	}
	for _, p := range stale {
		if dry {
			rep.Removed = append(rep.Removed, p)
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Remove(file); err != nil {
			return rep, err
		}
		rep.Removed = append(rep.Removed, p)
		for d := filepath.Dir(file); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break // not empty
			}
		}
	}
	slices.Sort(rep.Written)
	slices.Sort(rep.Unchanged)
	return rep, nil
}

// write writes f below dir unless it holds f's content already, or, with
// ifMissing, unless it exists at all; same reports that it was left alone.
// With dry it writes nothing, and reports the same.
func write(dir string, f File, ifMissing, dry bool) (same bool, err error) {
	file := filepath.Join(dir, filepath.FromSlash(f.Path))
	old, err := fsutil.ReadOSFile(file, int64(len(f.Data))+1)
	switch {
	case err == nil && (ifMissing || bytes.Equal(old, f.Data)):
		return true, nil
	case ifMissing && errors.Is(err, fsutil.ErrTooLarge):
		return true, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fsutil.ErrTooLarge):
		return false, err
	}
	if dry {
		return false, nil
	}
	return false, fsutil.WriteFileAtomic(file, f.Data)
}

// staleFiles are the hydrate files below dir's <cluster>/<namespace>
// folders that keep does not hold, sorted: in folders that hold a
// hydrator.metadata only, so that an output folder given by mistake (the
// repository itself) loses nothing else.
func staleFiles(dir string, keep map[string]bool) ([]string, error) {
	var out []string
	clusters, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, c := range clusters {
		if !c.IsDir() || strings.HasPrefix(c.Name(), ".") {
			continue
		}
		namespaces, err := os.ReadDir(filepath.Join(dir, c.Name()))
		if err != nil {
			return nil, err
		}
		for _, n := range namespaces {
			if !n.IsDir() {
				continue
			}
			// Only a folder a hydrator wrote: never a chart's README.
			if st, err := os.Lstat(filepath.Join(dir, c.Name(), n.Name(), MetadataFile)); err != nil || !st.Mode().IsRegular() {
				continue
			}
			for _, name := range []string{ManifestFile, ReadmeFile, MetadataFile} {
				p := c.Name() + "/" + n.Name() + "/" + name
				if keep[p] {
					continue
				}
				if st, err := os.Lstat(filepath.Join(dir, c.Name(), n.Name(), name)); err == nil && st.Mode().IsRegular() {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
