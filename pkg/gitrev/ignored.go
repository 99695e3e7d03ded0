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
// first asked about. Git's index is read first, once, and a tracked path
// is never matched against the patterns: a .gitignore under review,
// however large, costs nothing for the files Git holds (in CI, all of
// them). An index that cannot be read leaves every path an input.
func (r *Repo) Ignored() (func(p string) bool, error) {
	ig := &ignorer{root: r.root, dirs: map[string][]gitignore.Pattern{}}
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
		return !ig.tracked(p) && ig.ignored(full)
	}, nil
}

// ignorer answers Ignored's question for paths of the work tree.
type ignorer struct {
	root    string
	base    []gitignore.Pattern
	tracked func(p string) bool // Git's index holds p (relative to the repotool repository), or cannot be read
	mu      sync.Mutex
	dirs    map[string][]gitignore.Pattern // each folder's .gitignore, read once
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
	ps, ok := ig.dirs[key]
	if !ok {
		ps = readPatterns(filepath.Join(ig.root, filepath.FromSlash(path.Join(key, ".gitignore"))), dir)
		ig.dirs[key] = ps
	}
	return ps
}

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
