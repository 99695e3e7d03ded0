package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
)

// WalkFunc is called by Walk for every entry below the root. rel is the
// entry's path relative to the root as listed (links not resolved), real
// the path to open inside the file system, and info describes what real
// is. When err is non-nil the entry could not be followed (a broken link, a
// link leaving the repository, a link loop): info is nil, and returning nil
// skips the entry. Returning fs.SkipDir for a folder skips its contents;
// any other error stops the walk and is returned by Walk.
type WalkFunc func(rel, real string, info fs.FileInfo, err error) error

// Walk walks the folder root of fsys in lexical order, following symbolic
// links as long as they stay inside the file system. Unlike fs.WalkDir it
// follows linked folders, as helm's chart loader does, and unlike that
// loader it always ends: a folder reached again through a link while it is
// being walked (a link to a parent, or two links leading to each other) is
// reported as an ErrSymlinkLoop error for that entry instead of being
// entered. Links can still make a small tree look huge (folders linking to
// the same folder many times over), so a walk that meets more than
// MaxWalkEntries entries stops with ErrTooManyEntries.
func Walk(fsys fs.FS, root string, fn WalkFunc) error {
	real, err := Resolve(fsys, root)
	if err != nil {
		return err
	}
	n := 0
	return walk(fsys, real, "", []string{real}, &n, fn)
}

// MaxWalkEntries bounds the entries one Walk visits.
const MaxWalkEntries = 100_000

// ErrTooManyEntries is returned by a Walk that met more than MaxWalkEntries
// entries.
var ErrTooManyEntries = fmt.Errorf("more than %d files and folders (do symbolic links repeat folders?)", MaxWalkEntries)

func walk(fsys fs.FS, realDir, rel string, stack []string, n *int, fn WalkFunc) error {
	entries, err := fs.ReadDir(fsys, realDir)
	if err != nil {
		return err
	}
	for _, de := range entries {
		if *n++; *n > MaxWalkEntries {
			return ErrTooManyEntries
		}
		r := path.Join(rel, de.Name())
		p := path.Join(realDir, de.Name())
		if de.Type()&fs.ModeSymlink != 0 {
			target, err := Resolve(fsys, p)
			if err != nil {
				if err := fn(r, p, nil, err); err != nil {
					return err
				}
				continue
			}
			p = target
		}
		info, err := fs.Stat(fsys, p)
		if err != nil {
			if err := fn(r, p, nil, err); err != nil {
				return err
			}
			continue
		}
		if info.IsDir() && slices.ContainsFunc(stack, func(s string) bool { return s == p }) {
			if err := fn(r, p, nil, fmt.Errorf("%w: %s leads back to %s, a folder that contains it", ErrSymlinkLoop, r, p)); err != nil {
				return err
			}
			continue
		}
		switch err := fn(r, p, info, nil); {
		case errors.Is(err, fs.SkipDir) && info.IsDir():
			continue
		case err != nil:
			return err
		}
		if info.IsDir() {
			if err := walk(fsys, p, r, append(stack, p), n, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
