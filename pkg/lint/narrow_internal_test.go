package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesReadNarrowFacts holds the lint package to its shape: a rule's
// function is handed the facts it reads (repoFacts, renderings, positions,
// cluster views, what was asked), not the whole input. Only the registry's
// check literals, the few functions that build the input or run the
// registry, and the memos of what several rules read (the cluster views,
// the admission outcome) may take it.
func TestRulesReadNarrowFacts(t *testing.T) {
	allowed := map[string]bool{"buildInput": true, "clusterViews": true, "admissions": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if (takesInput(n.Recv) || takesInput(n.Type.Params) || takesInput(n.Type.Results)) && !allowed[n.Name.Name] {
					t.Errorf("%s: %s takes the whole input; hand it the facts it reads", fset.Position(n.Pos()), n.Name.Name)
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "check" {
					if _, ok := n.Value.(*ast.FuncLit); ok {
						seen++
						return false // a registry entry: it may read the input
					}
				}
			case *ast.FuncLit:
				if takesInput(n.Type.Params) {
					t.Errorf("%s: a function literal takes the whole input outside a rule's check", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
	if seen != len(registry) {
		t.Errorf("found %d check literals, want one per rule (%d)", seen, len(registry))
	}
}

// takesInput reports whether a field list holds *input.
func takesInput(fl *ast.FieldList) bool {
	if fl == nil {
		return false
	}
	for _, f := range fl.List {
		if star, ok := f.Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "input" {
				return true
			}
		}
	}
	return false
}
