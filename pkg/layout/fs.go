package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
)

// ErrSymlinkEscape is wrapped by errors about a path that leaves the
// repository through a symbolic link.
var ErrSymlinkEscape = fsutil.ErrSymlinkEscape

// ErrNotRegular is wrapped by errors about a file that is not a regular
// file (a named pipe, a device, a socket): it is never opened, since a
// read could block forever.
var ErrNotRegular = fsutil.ErrNotRegular

// ErrTooLarge is wrapped by errors about a file over the file index's
// limit (NewFiles).
var ErrTooLarge = fsutil.ErrTooLarge

// resolve resolves symlinks in name without leaving the repository.
var resolve = fsutil.Resolve

// entry is a directory entry with symlinks resolved inside the repository.
type entry struct {
	name string // base name as listed
	path string // path as listed, relative to the root
	real string // path with symlinks resolved; what to open
	dir  bool
	link bool // the entry itself is a symbolic link
}

// readDir lists dir (sorted by name), resolving symlinked entries. An entry
// whose link leaves the repository, dangles or loops is reported as a
// diagnostic at the link (so that the target it belongs to fails) and
// dropped. A missing dir is fs.ErrNotExist.
func (l *loader) readDir(dir string) ([]entry, error) {
	real, err := resolve(l.fsys, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.linkDiag(dir, err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	des, err := fs.ReadDir(l.fsys, real)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	out := make([]entry, 0, len(des))
	for _, de := range des {
		e := entry{name: de.Name(), path: path.Join(dir, de.Name()), real: path.Join(real, de.Name()), dir: de.IsDir()}
		if de.Type()&fs.ModeSymlink != 0 {
			target, err := resolve(l.fsys, e.real)
			if err != nil {
				l.linkDiag(e.path, err)
				continue
			}
			st, err := fs.Stat(l.fsys, target)
			if err != nil {
				return nil, fmt.Errorf("stat %s: %w", e.path, err)
			}
			e.real, e.dir, e.link = target, st.IsDir(), true
		}
		out = append(out, e)
	}
	return out, nil
}

// linkDiag reports a path that cannot be followed: a link that leaves the
// repository, dangles or loops.
func (l *loader) linkDiag(p string, err error) {
	switch {
	case errors.Is(err, fsutil.ErrGitDir):
		l.diag(SeverityError, CodeSymlinkEscape, p, 0, "the path leads into Git's directory, which no commit carries (and where the CI keeps its credentials)",
			"remove the link; a chart or values file may read only files of the repository's commits")
	case errors.Is(err, ErrSymlinkEscape):
		l.diag(SeverityError, CodeSymlinkEscape, p, 0, err.Error(),
			"replace the link with the files it points to, or point it inside the repository")
	case errors.Is(err, fsutil.ErrSymlinkLoop):
		l.diag(SeverityError, CodeSymlinkBroken, p, 0, err.Error(),
			"remove the link, or point it at a file or a folder that does not contain it")
	case errors.Is(err, fs.ErrNotExist):
		l.diag(SeverityError, CodeSymlinkBroken, p, 0, "broken symbolic link: its target does not exist",
			"point the link at an existing file (was the file renamed?), or remove it")
	default:
		l.diag(SeverityError, CodeSymlinkBroken, p, 0, "cannot follow the path: "+err.Error(), "fix or remove the link")
	}
}

// checkTree reports every link below dir (for example in a namespace's
// chart) that leaves the repository, dangles or loops, as helm would follow
// them: a link to a parent folder would make a chart endless.
func (l *loader) checkTree(dir string) error {
	links, err := linksIn(l.fsys, dir, func(p, real string, info fs.FileInfo, err error) error {
		switch {
		case err != nil:
			l.linkDiag(p, err)
		case !info.IsDir():
			l.checkCarried(p, real)
		}
		return l.ctx.Err()
	})
	switch {
	case err == nil:
		// Where the links lead is one of the targets' inputs: the walk
		// is not done again for them.
		l.repo.inputs.mu.Lock()
		l.repo.inputs.setLinks(dir, links)
		l.repo.inputs.mu.Unlock()
		return nil
	case l.ctx.Err() != nil:
		return err
	case errors.Is(err, fsutil.ErrTooManyEntries):
		l.diag(SeverityError, CodeTooLarge, dir, 0, "the folder has "+err.Error(), "remove the links that repeat folders, or move what the chart does not "+
			"need out of it")
	default:
		l.diag(SeverityError, CodeUnreadable, dir, 0, "cannot read the folder: "+err.Error(), "check the folder's permissions")
	}
	return nil
}

// checkCarried reports a file of a chart folder, listed as p and read at
// real, that Git ignores: Argo CD renders from Git, so the chart loader
// leaves it out (a git-ignored diagnostic, an error where Git-ignored
// values files are), and a link to such a file dangles in every checkout
// (an error).
func (l *loader) checkCarried(p, real string) {
	if !errors.Is(fsutil.Withheld(l.fsys, real), fsutil.ErrGitIgnored) {
		return
	}
	if st, err := fs.Lstat(l.fsys, p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		l.diag(SeverityError, CodeSymlinkBroken, p, 0, "the link leads to "+real+", a file Git ignores: in every checkout of the repository it dangles",
			"commit the file it points to, or remove the link")
		return
	}
	l.diag(l.ignoredIs, CodeGitIgnored, p, 0, "Git ignores this file of a chart: Argo CD renders from Git and never sees it, so it is left out of the chart",
		"commit it (git add -f "+p+") if the chart needs it")
}

// checkFolderLink reports a cluster or namespace folder (what) that is a
// symbolic link into the clusters' folder: it would deploy another
// cluster's or target's values and secrets under its own name, and a
// plugin asked for it would decrypt them.
func (l *loader) checkFolderLink(e entry, what string) {
	clusters := l.repo.Config.Layout.ClustersDir
	if !e.link || !e.dir || e.real != clusters && !strings.HasPrefix(e.real, clusters+"/") {
		return
	}
	l.diag(SeverityError, CodeFolderLink, e.path, 0,
		fmt.Sprintf("the %s folder is a symbolic link to %s: it would deploy that folder's values and secrets under another name", what, e.real),
		"make it a folder of its own, with its own values files")
}
