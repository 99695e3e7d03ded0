package repotool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// inOrder are the packages whose files stand in one order, each above the
// files it refers to, with no file referring back to one that refers to
// it: the lint package, the product's main verb, which a newcomer reads
// from its registry down to the facts its rules read.
var inOrder = []string{"pkg/lint", "pkg/held"}

// TestFilesInOrder finds, in each package of inOrder, the references
// between its files (a name used in one file and declared at the top level
// of another; methods are reached through their receivers' types) and
// fails on a loop of files, naming them and the names that tie them.
func TestFilesInOrder(t *testing.T) {
	for _, dir := range inOrder {
		refs := fileRefs(t, dir)
		if loop := findLoop(refs); loop != nil {
			var b strings.Builder
			for i, f := range loop {
				next := loop[(i+1)%len(loop)]
				b.WriteString("\n\t" + f + " -> " + next + ": " + strings.Join(refs[f][next], ", "))
			}
			t.Errorf("%s: files refer to each other in a loop; move what they share to a file below them:%s", dir, b.String())
		}
	}
	planted := map[string]map[string][]string{"a.go": {"b.go": {"x"}}, "b.go": {"c.go": {"y"}}, "c.go": {"a.go": {"z"}}, "d.go": {"a.go": {"w"}}}
	if loop := findLoop(planted); len(loop) != 3 {
		t.Errorf("the check misses a planted loop: %v", loop)
	}
}

// fileRefs are, for each file of dir (tests left out), the files it
// refers to and the names it uses of each.
func fileRefs(t *testing.T, dir string) map[string]map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	declared := map[string]string{} // top-level name -> its file
	for _, p := range names {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		files[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n.Name] = name
						}
					}
				}
			}
		}
	}
	refs := map[string]map[string][]string{}
	for name, f := range files {
		refs[name] = map[string][]string{}
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, visit)
				return false // a field or method name is not a top-level name
			}
			return visitIdent(n, name, declared, refs)
		}
		ast.Inspect(f, visit)
	}
	return refs
}

// visitIdent records an identifier the parser left unresolved in its file
// (not a local) that names a top-level declaration of another file.
func visitIdent(n ast.Node, file string, declared map[string]string, refs map[string]map[string][]string) bool {
	id, ok := n.(*ast.Ident)
	if !ok || id.Obj != nil {
		return true
	}
	if other, ok := declared[id.Name]; ok && other != file && !slices.Contains(refs[file][other], id.Name) {
		refs[file][other] = append(refs[file][other], id.Name)
	}
	return true
}

// findLoop is a loop of files in refs, nil when there is none.
func findLoop(refs map[string]map[string][]string) []string {
	state := map[string]int{} // 1: on the path, 2: done
	var path []string
	var visit func(f string) []string
	visit = func(f string) []string {
		state[f] = 1
		path = append(path, f)
		next := make([]string, 0, len(refs[f]))
		for g := range refs[f] {
			next = append(next, g)
		}
		slices.Sort(next)
		for _, g := range next {
			switch state[g] {
			case 1:
				return slices.Clone(path[slices.Index(path, g):])
			case 0:
				if loop := visit(g); loop != nil {
					return loop
				}
			}
		}
		path = path[:len(path)-1]
		state[f] = 2
		return nil
	}
	files := make([]string, 0, len(refs))
	for f := range refs {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if state[f] == 0 {
			if loop := visit(f); loop != nil {
				return loop
			}
		}
	}
	return nil
}
