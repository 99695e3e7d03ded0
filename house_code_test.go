package repotool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxFuncLines is how long a function outside tests may grow before it is
// split: past it, a function usually does several things, and a reader
// holds too much at once. A test's case table may be longer.
const maxFuncLines = 80

// longFuncs are the functions allowed past maxFuncLines, as
// "folder/file.go:Receiver.Name", each with its reason.
var longFuncs = map[string]string{}

// maxLineChars is how long a line of Go outside tests may be, in
// characters (a tab counts as one): a long message or description becomes
// several lines of a concatenation.
const maxLineChars = 160

// goSources calls f with every non-test Go file of the module, parsed,
// skipping generated files.
func goSources(t *testing.T, f func(file string, fset *token.FileSet, src []byte, ast *ast.File)) {
	t.Helper()
	for _, p := range modulePackages(t) {
		for _, name := range p.goFiles {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(p.directory, name))
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, name, src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if ast.IsGenerated(file) {
				continue
			}
			f(path.Join(p.path, name), fset, src, file)
		}
	}
}

// TestFunctionLengths keeps every function outside tests within
// maxFuncLines unless longFuncs gives a reason.
func TestFunctionLengths(t *testing.T) {
	seen := map[string]bool{}
	goSources(t, func(file string, fset *token.FileSet, _ []byte, f *ast.File) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				name = receiverName(fd.Recv.List[0].Type) + "." + name
			}
			key := file + ":" + name
			seen[key] = true
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			reason, allowed := longFuncs[key]
			switch {
			case n > maxFuncLines && !allowed:
				t.Errorf("%s has %d lines, more than %d: split it into steps whose names say what they do "+
					"(a switch over kinds becomes a table), or give the reason in longFuncs", key, n, maxFuncLines)
			case allowed && n <= maxFuncLines:
				t.Errorf("%s has %d lines: drop its longFuncs entry (%s)", key, n, reason)
			}
		}
	})
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("longFuncs names %s, which does not exist", key)
		}
	}
}

func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// TestLineLengths keeps every line of Go outside tests within
// maxLineChars.
func TestLineLengths(t *testing.T) {
	goSources(t, func(file string, _ *token.FileSet, src []byte, _ *ast.File) {
		for i, line := range strings.Split(string(src), "\n") {
			if n := utf8.RuneCountInString(line); n > maxLineChars {
				t.Errorf("%s:%d has %d characters, more than %d: break it (a long string becomes a concatenation, "+
					"a long call one argument per line)", file, i+1, n, maxLineChars)
			}
		}
	})
}
