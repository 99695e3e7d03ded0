package gitrev

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/repotool/repotool/internal/fsutil"
)

// Ignored returns what Git ignores in the work tree, as a test of a path
// of the repotool repository (slash-separated, relative to its root): a
// file Git does not track that a .gitignore file (the work tree's, from
// its root down to the file's folder), .git/info/exclude or the user's or
// system's core.excludesFile matches, or that lies in a folder they
// match. A tracked file is never ignored, whatever the patterns say, as in
// Git. The .gitignore files are read once each, when a path below them is
// first asked about (a folder without one is looked at again only after
// maxNone others without one: a repository has a folder per target). Git's index is read first, once, and a tracked path
// is never matched against the patterns: a .gitignore under review,
// however large, costs nothing for the files Git holds (in CI, all of
// them). An index that cannot be read leaves every path an input. Where
// few patterns apply to a path (at most maxPatternsFirst, as in most
// repositories), they are matched first, and the index read only for a
// path they match: a work tree whose values files no pattern matches never
// reads it (137,000 entries at 20,000 targets, some 40 MB as go-git
// decodes them).
func (r *Repo) Ignored() (func(p string) bool, error) {
	ig := &ignorer{root: r.root, dirs: map[string][]gitignore.Pattern{}, none: map[string]struct{}{}}
	ig.tracked = func(p string) bool {
		c, err := r.index()
		if err != nil {
			return true // unreadable: nothing is ignored
		}
		_, ok := c.entry(p)
		return ok
	}
	rootFS := osfs.New("/")
	for _, load := range []func() ([]gitignore.Pattern, error){
		func() ([]gitignore.Pattern, error) { return gitignore.LoadSystemPatterns(rootFS) },
		func() ([]gitignore.Pattern, error) { return gitignore.LoadGlobalPatterns(rootFS) },
	} {
		ps, err := load()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		ig.base = append(ig.base, ps...)
	}
	if len(ig.base) == 0 {
		ig.base = append(ig.base, defaultExcludes()...) // core.excludesFile unset: Git reads $XDG_CONFIG_HOME/git/ignore
	}
	ig.base = append(ig.base, readPatterns(filepath.Join(r.root, ".git", "info", "exclude"), nil)...)
	return func(p string) bool {
		full := p
		if r.sub != "" {
			full = r.sub + "/" + p
		}
		if !ig.few(full) {
			return !ig.tracked(p) && ig.ignored(full)
		}
		return ig.ignored(full) && !ig.tracked(p) // the same answer
	}, nil
}

// maxPatternsFirst is how many ignore patterns may apply to a path for
// Ignored to match them before it asks Git's index whether Git tracks the
// path, and maxFirstSize how large a .gitignore file may be for it to read
// the file to count them: a .gitignore under review may hold any number.
const (
	maxPatternsFirst = 64
	maxFirstSize     = 16 << 10
)

// few reports whether at most maxPatternsFirst patterns apply to the work
// tree's path p: the base ones, and those of the .gitignore files of its
// folders, none larger than maxFirstSize (a larger one is not read to
// tell).
func (ig *ignorer) few(p string) bool {
	dir := path.Dir(p)
	ig.mu.Lock()
	last, few := ig.last, ig.lastFew
	ig.mu.Unlock()
	if last == dir { // the files of a folder come together
		return few
	}
	few = ig.count(dir)
	ig.mu.Lock()
	ig.last, ig.lastFew = dir, few
	ig.mu.Unlock()
	return few
}

// count is few for the paths of the folder dir.
func (ig *ignorer) count(dir string) bool {
	parts := strings.Split(dir, "/")
	if dir == "." {
		parts = nil
	}
	n := len(ig.base)
	for i := range len(parts) + 1 {
		if ig.large(parts[:i]) {
			return false
		}
		if n += len(ig.patternsOf(parts[:i])); n > maxPatternsFirst {
			return false
		}
	}
	return true
}

// large reports whether the .gitignore file of the folder dir (path
// components), not read yet, is larger than maxFirstSize.
func (ig *ignorer) large(dir []string) bool {
	key := strings.Join(dir, "/")
	ig.mu.Lock()
	_, read := ig.dirs[key]
	_, none := ig.none[key]
	ig.mu.Unlock()
	read = read || none
	if read {
		return false
	}
	st, err := os.Stat(ig.file(key))
	return err == nil && st.Size() > maxFirstSize
}

// file is the .gitignore file of the folder key (slash-separated; "" for
// the root).
func (ig *ignorer) file(key string) string {
	return filepath.Join(ig.root, filepath.FromSlash(path.Join(key, ".gitignore")))
}

// ignorer answers Ignored's question for paths of the work tree.
type ignorer struct {
	root    string
	base    []gitignore.Pattern
	tracked func(p string) bool // Git's index holds p (relative to the repotool repository), or cannot be read
	mu      sync.Mutex
	dirs    map[string][]gitignore.Pattern // each folder's .gitignore with patterns, read once
	// none are folders found without patterns (most: no .gitignore), at
	// most maxNone of them, forgotten all at once when full: a repository
	// has a folder per target, and the files of a folder are asked about
	// together.
	none map[string]struct{}
	// last is the folder few last answered for, lastFew its answer.
	last    string
	lastFew bool
}

// ignored reports whether the work tree's path p, untracked, is ignored:
// it or a folder above it matched by the patterns that apply there.
func (ig *ignorer) ignored(p string) bool {
	parts := strings.Split(p, "/")
	patterns := ig.base
	for i := range parts {
		patterns = append(patterns[:len(patterns):len(patterns)], ig.patternsOf(parts[:i])...)
		if gitignore.NewMatcher(patterns).Match(parts[:i+1], i < len(parts)-1) {
			return true // Git does not look inside an ignored folder
		}
	}
	return false
}

// patternsOf are the patterns of the .gitignore file in the folder dir
// (path components; none: the root).
func (ig *ignorer) patternsOf(dir []string) []gitignore.Pattern {
	key := strings.Join(dir, "/")
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if _, ok := ig.none[key]; ok {
		return nil
	}
	ps, ok := ig.dirs[key]
	if !ok {
		ps = readPatterns(ig.file(key), dir)
		switch {
		case len(ps) > 0:
			ig.dirs[key] = ps
		case len(ig.none) >= maxNone:
			ig.none = map[string]struct{}{key: {}}
		default:
			ig.none[key] = struct{}{}
		}
	}
	return ps
}

// maxNone is how many folders without ignore patterns an ignorer
// remembers.
const maxNone = 1024

// readPatterns reads an ignore file's patterns, relative to the folder
// domain; a file that cannot be read has none, as for Git.
func readPatterns(file string, domain []string) []gitignore.Pattern {
	data, err := fsutil.ReadOSFile(file, fsutil.DefaultMaxFileSize)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, domain))
	}
	return ps
}

// defaultExcludes are the patterns of Git's default core.excludesFile,
// $XDG_CONFIG_HOME/git/ignore (else ~/.config/git/ignore).
func defaultExcludes() []gitignore.Pattern {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(home, ".config")
	}
	return readPatterns(filepath.Join(dir, "git", "ignore"), nil)
}
