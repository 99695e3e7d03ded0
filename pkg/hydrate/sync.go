package hydrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/outdir"
)

// SyncReport says what Sync did, paths relative to the folder: the one
// report of every folder writer (outdir.Report).
type SyncReport = outdir.Report

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
func (res *Result) Sync(dir string) (*SyncReport, error) {
	want, rep, err := res.plan(os.DirFS(dir), same)
	if err != nil {
		return nil, fmt.Errorf("%w: nothing was written to %s", err, dir)
	}
	return rep, outdir.Commit(dir, rep, want)
}

// plan is what res makes of prev, the output as it stands (a folder, or a
// branch's tree; nil for none): every file the output is to hold, kept
// targets' and companions left as they are included, and what differs
// from prev.
func (res *Result) plan(prev fs.FS, same func(prev fs.FS, p string, data []byte) bool) (map[string][]byte, *SyncReport, error) {
	if len(res.Errors) > 0 {
		return nil, nil, fmt.Errorf("%w (%d)", ErrFailedTargets, len(res.Errors))
	}
	if prev == nil {
		prev = emptyFS{}
	}
	want := map[string][]byte{}
	rep := &SyncReport{}
	for _, d := range res.Kept {
		for _, name := range []string{ManifestFile, ReadmeFile, MetadataFile} {
			if data, err := fsutil.ReadFile(prev, d+"/"+name, fsutil.DefaultMaxFileSize); err == nil {
				want[d+"/"+name] = data
			}
		}
	}
	changed := map[string]bool{} // folders whose manifest.yaml changed
	var companions []File
	for _, f := range res.Files {
		if path.Base(f.Path) != ManifestFile && f.Path != GitAttributesFile {
			companions = append(companions, f)
			continue
		}
		want[f.Path] = f.Data
		if same(prev, f.Path, f.Data) {
			rep.Unchanged = append(rep.Unchanged, f.Path)
			continue
		}
		changed[path.Dir(f.Path)] = f.Path != GitAttributesFile
		rep.Written = append(rep.Written, f.Path)
	}
	stale, err := staleFiles(prev, want, companions, res.flat)
	if err != nil {
		return nil, nil, err
	}
	anyChange := len(stale) > 0
	for d, c := range changed {
		anyChange = anyChange || c && d != "."
	}
	for _, f := range companions {
		d := path.Dir(f.Path)
		old, err := fsutil.ReadFile(prev, f.Path, fsutil.DefaultMaxFileSize)
		switch {
		case err == nil && (bytes.Equal(old, f.Data) || !changed[d] && !(d == "." && anyChange)):
			want[f.Path] = old // Argo CD rewrites a companion only with its manifest
			rep.Unchanged = append(rep.Unchanged, f.Path)
		default:
			want[f.Path] = f.Data
			rep.Written = append(rep.Written, f.Path)
		}
	}
	rep.Removed = stale
	slices.Sort(rep.Written)
	slices.Sort(rep.Unchanged)
	return want, rep, nil
}

// same reports whether prev holds data at p.
func same(prev fs.FS, p string, data []byte) bool {
	old, err := fsutil.ReadFile(prev, p, int64(len(data))+1)
	return err == nil && bytes.Equal(old, data)
}

// staleFiles are the hydrate files below prev's <cluster>/<namespace>
// folders (<namespace> folders, flat) that neither want nor companions
// hold, sorted: in folders that hold a hydrator.metadata only, so that an
// output folder given by mistake (the repository itself) loses nothing
// else.
func staleFiles(prev fs.FS, want map[string][]byte, companions []File, flat bool) ([]string, error) {
	keep := map[string]bool{}
	for p := range want {
		keep[p] = true
	}
	for _, f := range companions {
		keep[f.Path] = true
	}
	var out []string
	clusters := []string{"."}
	if !flat {
		entries, err := fs.ReadDir(prev, ".")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		clusters = nil
		for _, c := range entries {
			if c.IsDir() && !strings.HasPrefix(c.Name(), ".") {
				clusters = append(clusters, c.Name())
			}
		}
	}
	for _, c := range clusters {
		namespaces, err := fs.ReadDir(prev, c)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, n := range namespaces {
			d := path.Join(c, n.Name())
			// Only a folder a hydrator wrote: never a chart's README.
			if !n.IsDir() || !isRegular(prev, d+"/"+MetadataFile) {
				continue
			}
			for _, name := range []string{ManifestFile, ReadmeFile, MetadataFile} {
				if p := d + "/" + name; !keep[p] && isRegular(prev, p) {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func isRegular(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && st.Mode().IsRegular()
}

// emptyFS is an output that does not exist yet.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
