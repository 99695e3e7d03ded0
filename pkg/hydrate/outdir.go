package hydrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CheckOut refuses an --out folder hydrate must not write into: the Git
// directory (gitRoot/.git) or anything in it, the work tree's root, the
// repository's root (repoDir) and the folders its layout owns (clusters,
// namespaces, as repotool.yaml names them) with everything in them, unless
// the folder already holds hydrate's own root metadata (a hydration
// kept there on purpose). Sync removes the files of targets that are gone:
// pointed at one of these, it would rewrite or remove the repository's own
// files. Links are followed before deciding.
func CheckOut(out, gitRoot, repoDir string, layoutDirs ...string) error {
	abs, err := resolve(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	root, repo := mustResolve(gitRoot), mustResolve(repoDir)
	gitDir := filepath.Join(root, ".git")
	if _, err := os.Stat(filepath.Join(abs, MetadataFile)); err == nil && !within(abs, gitDir) {
		return nil // hydrate's own output, kept there on purpose
	}
	refuse := func(what string) error {
		return fmt.Errorf("--out %s is %s: hydrate writes and removes files there; give a folder of its own (hydrated/, say)", out, what)
	}
	switch {
	case within(abs, gitDir):
		return refuse("Git's own directory")
	case abs == root:
		return refuse("the Git work tree's root")
	case abs == repo:
		return refuse("the repository's root")
	}
	for _, d := range layoutDirs {
		if within(abs, filepath.Join(repo, filepath.FromSlash(d))) {
			return refuse("inside " + d + "/, which the layout reads")
		}
	}
	return nil
}

// resolve is p absolute, with the links of its longest existing part
// followed.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(cur) == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

func mustResolve(p string) string {
	if r, err := resolve(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
