package repotool_test

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"
)

// gitImport says what is wrong with a file of the package p importing
// imp, "" when nothing: go-git is imported by pkg/gitrev alone (and the
// test helpers, which commit fixtures), and the CLI speaks to Git through
// the library's revision scope (pkg/scope), never pkg/gitrev itself.
func gitImport(p, imp string) string {
	switch {
	case strings.HasPrefix(imp, "github.com/go-git/") && p != "pkg/gitrev" && !isTestHelper(p):
		return "imports go-git, which only pkg/gitrev may: ask pkg/scope or pkg/gitrev"
	case strings.HasPrefix(p, "cmd/") && imp == module+"pkg/gitrev":
		return "imports pkg/gitrev: the CLI asks pkg/scope"
	}
	return ""
}

// TestGitHasOneDoor: go-git only in pkg/gitrev, and the CLI through
// pkg/scope (checked on planted imports too).
func TestGitHasOneDoor(t *testing.T) {
	goSources(t, func(file string, _ *token.FileSet, _ []byte, f *ast.File) {
		p := strings.TrimPrefix(path.Dir(file), ".")
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if why := gitImport(p, imp); why != "" {
				t.Errorf("%s %s", file, why)
			}
		}
	})
	for _, planted := range [][2]string{{"cmd/repotool/cli", module + "pkg/gitrev"}, {"pkg/diff", "github.com/go-git/go-git/v5/plumbing"}} {
		if gitImport(planted[0], planted[1]) == "" {
			t.Errorf("the check lets %s import %s", planted[0], planted[1])
		}
	}
	if gitImport("pkg/gitrev", "github.com/go-git/go-git/v5") != "" || gitImport("cmd/repotool/cli", module+"pkg/scope") != "" {
		t.Error("the check refuses what is allowed")
	}
}
