// Package fsutil holds small file-system and process-environment helpers
// shared by the packages: symlink resolution inside an fs.FS that refuses to
// leave the repository, atomic file writes, and environment lookup in an
// injected environ slice.
//
// Inside: `ReadFile` (with `ReadOSFile` and `Open` for streams), the one way
// any package reads a file: it refuses a named pipe, a device or a socket
// before opening it and a file over the reader's limit before reading it
// (`read.go`; the root's `TestOneReader` fails on any other `os.ReadFile`,
// `os.Open` or `fs.ReadFile` outside tests), symlink resolution inside an
// `fs.FS` that refuses to leave the repository, and `Walk`, which follows
// links inside it with cycle detection and a bound (shared by layout and the
// chart reader). `Carried` is a work tree as Git carries it, the file system
// `layout.LoadDir` gives every reader: nothing in Git's directory (`.git` at
// any depth, or where Git keeps it inside the root) is listed, opened or
// followed, and a file Git ignores is listed but never read (`Withheld` tells
// a reader why; the chart reader leaves such a file out, the layout names it
// `git-ignored`, a link to either fails its target).
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrSymlinkEscape is wrapped by errors about a path that leaves the
// repository through a symbolic link.
var ErrSymlinkEscape = errors.New("symbolic link leads outside the repository")

// ErrSymlinkLoop is wrapped by errors about symbolic links that never end:
// a chain of links longer than the kernel follows, or a folder link that
// leads back to a folder above it (so a walk would never end).
var ErrSymlinkLoop = errors.New("symbolic links form a loop")

// maxLinkHops bounds symlink resolution (as the Linux kernel's MAXSYMLINKS).
const maxLinkHops = 40

// Resolve returns name with every symbolic link in it resolved, as a path
// inside fsys. It fails with ErrSymlinkEscape when a link is absolute or
// climbs above the root, and with fs.ErrNotExist when a component is
// missing. File systems that cannot read links are taken as they are.
func Resolve(fsys fs.FS, name string) (string, error) {
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		if _, err := fs.Stat(fsys, name); err != nil {
			return "", err
		}
		return name, nil
	}
	todo := strings.Split(path.Clean(name), "/")
	done := "."
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		if part == "." || part == "" {
			continue
		}
		if part == ".." {
			if done == "." {
				return "", fmt.Errorf("%w: %s", ErrSymlinkEscape, name)
			}
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, part)
		info, err := fs.Lstat(fsys, next)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("%w: %s: too many levels of symbolic links", ErrSymlinkLoop, name)
		}
		target, err := fs.ReadLink(fsys, next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) || strings.HasPrefix(target, "/") {
			return "", fmt.Errorf("%w: %s points to the absolute path %s", ErrSymlinkEscape, next, target)
		}
		rest := strings.Split(target, "/")
		if escapes(done, target) {
			return "", fmt.Errorf("%w: %s points to %s", ErrSymlinkEscape, next, target)
		}
		todo = append(rest, todo...)
	}
	return done, nil
}

// escapes reports whether the relative link target, read in dir, climbs
// above the root.
func escapes(dir, target string) bool {
	j := path.Join(dir, target)
	return j == ".." || strings.HasPrefix(j, "../")
}

// WriteFileAtomic writes data to file through a temporary file in the same
// folder and a rename, creating the folder when needed, so readers (and
// concurrent writers) never see a partial file.
func WriteFileAtomic(file string, data []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Getenv returns the value of key in environ ("KEY=value" entries, as
// os.Environ returns them); the last entry wins, as in the shell.
func Getenv(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// IgnoredDir reports whether a folder of a repository is left out of
// every scan: hidden ones (.git, .github, ...) and node_modules.
func IgnoredDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// Files lists the files of fsys (sorted, as fs.WalkDir visits them) that
// keep accepts, leaving out the folders IgnoredDir names.
func Files(fsys fs.FS, keep func(p string, d fs.DirEntry) bool) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && IgnoredDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if keep == nil || keep(p, d) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// LinkOnTheWay is the first of the paths leading to p in fsys (p's
// folders, from the top, then p itself) that is a symbolic link, "" when
// none is; what does not exist ends the search. A folder repotool writes
// is written through no link (internal/outdir), and hydrate's check
// reports one.
func LinkOnTheWay(fsys fs.FS, p string) (string, error) {
	cur := ""
	for _, part := range strings.Split(p, "/") {
		cur = path.Join(cur, part)
		st, err := fs.Lstat(fsys, cur)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return cur, nil
		}
	}
	return "", nil
}
