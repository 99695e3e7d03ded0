package fsutil

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// ErrNotCarried is wrapped by errors about a path of a work tree that no
// commit carries, so a chart or a values file may not read it: ErrGitDir
// and ErrGitIgnored wrap it.
var ErrNotCarried = errors.New("not a file Git carries")

// ErrGitDir is wrapped by errors about a path in Git's directory (.git,
// the .git file of a worktree or submodule, or wherever the operator's
// Git keeps it): the CI's credentials and the repository's hooks live
// there, and no commit carries it.
var ErrGitDir = &carriedError{"it is in Git's directory, which no commit carries"}

// ErrGitIgnored is wrapped by errors about a file Git ignores in the work
// tree: Argo CD renders from Git and never sees it.
var ErrGitIgnored = &carriedError{"Git ignores it, so no commit carries it"}

type carriedError struct{ msg string }

func (e *carriedError) Error() string        { return e.msg }
func (e *carriedError) Is(target error) bool { return target == ErrNotCarried }

// CarriedFS is a work tree as Git would carry it: Carried makes one.
type CarriedFS struct {
	fsys    fs.FS
	ignored func(string) bool
	gitDir  string
}

var (
	_ fs.ReadLinkFS = (*CarriedFS)(nil)
	_ fs.ReadDirFS  = (*CarriedFS)(nil)
	_ fs.StatFS     = (*CarriedFS)(nil)
)

// Carried returns the work tree fsys (a repository's root folder) as a
// revision of it would read: a folder named .git (or gitDir, Git's
// directory when it lies inside the root under another name; "" when it
// does not) is in no listing and cannot be opened, followed or looked at,
// whatever the path or link that leads there; a file ignored reports
// (what Git ignores, relative to the root; nil when nothing is) is listed
// and can be looked at, so that what lists it can say it is left out, but
// not read, nor followed when it is a link. The errors name the path and
// wrap ErrGitDir or ErrGitIgnored.
func Carried(fsys fs.FS, ignored func(string) bool, gitDir string) *CarriedFS {
	return &CarriedFS{fsys: fsys, ignored: ignored, gitDir: path.Clean(gitDir)}
}

// Withheld returns why fsys (a CarriedFS, or any other, which withholds
// nothing) withholds the content of name: an error wrapping ErrGitDir or
// ErrGitIgnored, or nil.
func Withheld(fsys fs.FS, name string) error {
	c, ok := fsys.(*CarriedFS)
	if !ok {
		return nil
	}
	if err := c.gitPath(name); err != nil {
		return err
	}
	if c.ignored != nil && name != "." && c.ignored(name) {
		return ErrGitIgnored
	}
	return nil
}

// gitPath is ErrGitDir for a path in Git's directory.
func (c *CarriedFS) gitPath(name string) error {
	if name == ".git" || strings.HasPrefix(name, ".git/") || strings.Contains(name, "/.git/") || strings.HasSuffix(name, "/.git") {
		return ErrGitDir
	}
	if c.gitDir != "." && c.gitDir != "" && (name == c.gitDir || strings.HasPrefix(name, c.gitDir+"/")) {
		return ErrGitDir
	}
	return nil
}

// refuse is the *fs.PathError of op on name when it is withheld; content
// says whether op reads a file's content (an ignored file's is withheld,
// its entry is not).
func (c *CarriedFS) refuse(op, name string, content bool) error {
	if err := c.gitPath(name); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	if content && c.ignored != nil && name != "." && c.ignored(name) {
		return &fs.PathError{Op: op, Path: name, Err: ErrGitIgnored}
	}
	return nil
}

// Open opens name; a file Git ignores is refused, a folder it ignores is
// not (its files are).
func (c *CarriedFS) Open(name string) (fs.File, error) {
	if err := c.refuse("open", name, false); err != nil {
		return nil, err
	}
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && !st.IsDir() {
		if err := c.refuse("open", name, true); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// Stat is fs.Stat of the file system, but for Git's directory.
func (c *CarriedFS) Stat(name string) (fs.FileInfo, error) {
	if err := c.refuse("stat", name, false); err != nil {
		return nil, err
	}
	return fs.Stat(c.fsys, name)
}

// Lstat is fs.Lstat of the file system, but for Git's directory.
func (c *CarriedFS) Lstat(name string) (fs.FileInfo, error) {
	if err := c.refuse("lstat", name, false); err != nil {
		return nil, err
	}
	return fs.Lstat(c.fsys, name)
}

// ReadLink reads a link that Git carries.
func (c *CarriedFS) ReadLink(name string) (string, error) {
	if err := c.refuse("readlink", name, true); err != nil {
		return "", err
	}
	return fs.ReadLink(c.fsys, name)
}

// ReadDir lists a folder without the entries for Git's directory.
func (c *CarriedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.refuse("readdir", name, false); err != nil {
		return nil, err
	}
	des, err := fs.ReadDir(c.fsys, name)
	return slices.DeleteFunc(des, func(de fs.DirEntry) bool {
		return c.gitPath(path.Join(name, de.Name())) != nil
	}), err
}
