package repotool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// directReads are the functions that read a file whole, or open one for
// reading, without looking first at what it is: on a named pipe they wait
// for a writer forever (a FIFO named like a values file hung every
// command), and they read a file of any size. The library, the CLI and the
// Argo CD plugin read files through internal/fsutil's ReadFile, ReadOSFile
// and Open instead, which refuse files that are not regular and files over
// the reader's limit.
var directReads = map[string][]string{
	"os":        {"ReadFile", "Open"},
	"io/fs":     {"ReadFile"},
	"io/ioutil": {"ReadFile"},
}

// readerFiles are the files allowed to call them, each with its reason.
var readerFiles = map[string]string{}

// TestOneReader finds every call of a directReads function outside tests,
// developer programs and test helpers: each is a new way for an input to
// hang a command or exhaust its memory. Read through fsutil instead, or
// give the reason in readerFiles.
func TestOneReader(t *testing.T) {
	used := map[string]bool{}
	for _, p := range modulePackages(t) {
		if strings.HasPrefix(p.path, "tools/") || isTestHelper(p.path) {
			continue
		}
		for _, name := range p.goFiles {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			file := path.Join(p.path, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.directory, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range readCalls(f) {
				if _, ok := readerFiles[file]; ok {
					used[file] = true
					continue
				}
				t.Errorf("%s:%d calls %s: read through internal/fsutil (ReadFile, ReadOSFile, Open), which refuses named pipes, devices and files over a limit, or give the reason in readerFiles",
					file, fset.Position(call.Pos()).Line, call.name)
			}
		}
	}
	for file, reason := range readerFiles {
		if !used[file] {
			t.Errorf("%s calls no direct read any more: drop its readerFiles entry (%s)", file, reason)
		}
	}
}

type readCall struct {
	ast.Node
	name string
}

// readCalls lists f's calls of directReads functions, by the names f
// imports their packages under.
func readCalls(f *ast.File) []readCall {
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := path.Base(p)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		names[local] = p
	}
	var out []readCall
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		pkg := names[id.Name]
		for _, fn := range directReads[pkg] {
			if sel.Sel.Name == fn {
				out = append(out, readCall{sel, pkg + "." + fn})
			}
		}
		return true
	})
	return out
}
