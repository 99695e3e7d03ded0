package hydrate

import (
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
	want, rep, err := res.plan(os.DirFS(dir), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: nothing was written to %s", err, dir)
	}
	return rep, outdir.Commit(dir, rep, want.read)
}

// contents are the files an output is to hold, by path, each read when it
// is written: the files of a Result expanded one at a time, those kept
// from the output as it stands read from it.
type contents map[string]func() ([]byte, error)

// read is the content of p.
func (c contents) read(p string) ([]byte, error) {
	if read, ok := c[p]; ok {
		return read()
	}
	return nil, fmt.Errorf("hydrate: %s is not a file of the plan", p) // not reached: callers ask for the plan's paths
}

// plan is what res makes of prev, the output as it stands (a folder, or a
// branch's tree; nil for none): every file the output is to hold, kept
// targets' and companions left as they are included, and what differs
// from prev. A file is the same as prev's when it holds the same bytes
// (compared by size and digest, without putting res's file together),
// or, given alike, when alike says so of a manifest.
func (res *Result) plan(prev fs.FS, alike func(prev fs.FS, p string, data []byte) bool) (contents, *SyncReport, error) {
	if len(res.Errors) > 0 {
		return nil, nil, fmt.Errorf("%w (%d)", ErrFailedTargets, len(res.Errors))
	}
	if prev == nil {
		prev = emptyFS{}
	}
	want := contents{}
	rep := &SyncReport{}
	for _, d := range res.Kept {
		for _, name := range []string{ManifestFile, ReadmeFile, MetadataFile} {
			if p := d + "/" + name; isRegular(prev, p) {
				want[p] = readFrom(prev, p)
			}
		}
	}
	changed := map[string]bool{} // folders whose manifest.yaml changed
	var companions []packed
	for _, f := range res.files {
		p := res.path(f)
		if res.names[f.name] != ManifestFile && p != GitAttributesFile {
			companions = append(companions, f)
			continue
		}
		want[p] = res.reader(f)
		same, err := res.unchanged(prev, f, alike)
		if err != nil {
			return nil, nil, err
		}
		if same {
			rep.Unchanged = append(rep.Unchanged, p)
			continue
		}
		changed[res.dirs[f.dir]] = p != GitAttributesFile
		rep.Written = append(rep.Written, p)
	}
	stale, err := staleFiles(prev, want, res.paths(companions), res.flat)
	if err != nil {
		return nil, nil, err
	}
	anyChange := len(stale) > 0
	for d, c := range changed {
		anyChange = anyChange || c && d != ""
	}
	for _, f := range companions {
		p, d := res.path(f), res.dirs[f.dir]
		switch {
		case isRegular(prev, p) && (res.in(prev, f) || !changed[d] && !(d == "" && anyChange)):
			want[p] = readFrom(prev, p) // Argo CD rewrites a companion only with its manifest
			rep.Unchanged = append(rep.Unchanged, p)
		default:
			want[p] = res.reader(f)
			rep.Written = append(rep.Written, p)
		}
	}
	rep.Removed = stale
	slices.Sort(rep.Written)
	slices.Sort(rep.Unchanged)
	return want, rep, nil
}

// readFrom reads p from prev when called: a file an output keeps as it
// stands is read again when written (a branch's tree), or never (a
// folder, where it is left alone).
func readFrom(prev fs.FS, p string) func() ([]byte, error) {
	return func() ([]byte, error) { return fsutil.ReadFile(prev, p, fsutil.DefaultMaxFileSize) }
}

// unchanged reports whether prev holds f: its bytes, or what alike, when
// not nil, takes as the same.
func (res *Result) unchanged(prev fs.FS, f packed, alike func(prev fs.FS, p string, data []byte) bool) (bool, error) {
	if in := res.in(prev, f); in || alike == nil {
		return in, nil
	}
	data, err := res.bytes(f)
	if err != nil {
		return false, err
	}
	return alike(prev, res.path(f), data), nil
}

// staleFiles are the hydrate files below prev's <cluster>/<namespace>
// folders (<namespace> folders, flat) that neither want nor companions
// hold, sorted: in folders that hold a hydrator.metadata only, so that an
// output folder given by mistake (the repository itself) loses nothing
// else.
func staleFiles(prev fs.FS, want contents, companions []string, flat bool) ([]string, error) {
	keep := map[string]bool{}
	for p := range want {
		keep[p] = true
	}
	for _, p := range companions {
		keep[p] = true
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
