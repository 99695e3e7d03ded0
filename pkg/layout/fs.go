package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/repotool/repotool/internal/fsutil"
)

// ErrSymlinkEscape is wrapped by errors about a path that leaves the
// repository through a symbolic link.
var ErrSymlinkEscape = fsutil.ErrSymlinkEscape

// resolve resolves symlinks in name without leaving the repository.
var resolve = fsutil.Resolve

// entry is a directory entry with symlinks resolved inside the repository.
type entry struct {
	name string // base name as listed
	path string // path as listed, relative to the root
	real string // path with symlinks resolved; what to open
	dir  bool
}

// readDir lists dir (sorted by name), resolving symlinked entries. An entry
// whose link leaves the repository is reported as a diagnostic and dropped.
// A missing dir is fs.ErrNotExist.
func (l *loader) readDir(dir string) ([]entry, error) {
	real, err := resolve(l.fsys, dir)
	if errors.Is(err, ErrSymlinkEscape) {
		l.diag(SeverityError, CodeSymlinkEscape, dir, 0, err.Error(), "replace the link with the files it points to, or point it inside the repository")
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
				if errors.Is(err, ErrSymlinkEscape) {
					l.diag(SeverityError, CodeSymlinkEscape, e.path, 0, err.Error(),
						"replace the link with the files it points to, or point it inside the repository")
				} else {
					l.diag(SeverityError, CodeSymlinkEscape, e.path, 0, "broken symbolic link: "+err.Error(), "fix or remove the link")
				}
				continue
			}
			st, err := fs.Stat(l.fsys, target)
			if err != nil {
				return nil, fmt.Errorf("stat %s: %w", e.path, err)
			}
			e.real, e.dir = target, st.IsDir()
		}
		out = append(out, e)
	}
	return out, nil
}

// checkSymlinks reports every symlink below dir that leaves the repository
// (for example a chart template linked to a file outside the repository).
func (l *loader) checkSymlinks(dir string) error {
	return fs.WalkDir(l.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if _, err := resolve(l.fsys, p); errors.Is(err, ErrSymlinkEscape) {
			l.diag(SeverityError, CodeSymlinkEscape, p, 0, err.Error(),
				"replace the link with the files it points to, or point it inside the repository")
		}
		return nil
	})
}
