package repotool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// pointerHome is the one package that escapes and splits JSON pointers.
const pointerHome = "internal/jsonptr/"

// pointerHandling reports the places in f that take a JSON pointer apart
// or escape a token by hand: a "~0" or "~1" literal (a replacer's), or strings.Split,
// SplitN or Cut on "/" of an expression named like a pointer. Split by
// hand, a pointer keeps its escapes ("app.kubernetes.io~1name") and the
// field it names is never found.
func pointerHandling(fset *token.FileSet, src []byte, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && (s == "~0" || s == "~1") {
				out = append(out, fset.Position(x.Pos()).String()+": a JSON pointer escape by hand")
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			pkg, _ := func() (*ast.Ident, bool) {
				if !ok {
					return nil, false
				}
				id, ok := sel.X.(*ast.Ident)
				return id, ok
			}()
			if pkg == nil || pkg.Name != "strings" || len(x.Args) < 2 || !strings.HasPrefix(sel.Sel.Name, "Split") && sel.Sel.Name != "Cut" {
				return true
			}
			sep, ok := x.Args[1].(*ast.BasicLit)
			arg := strings.ToLower(string(src[fset.Position(x.Args[0].Pos()).Offset:fset.Position(x.Args[0].End()).Offset]))
			if ok && sep.Value == `"/"` && (strings.Contains(arg, "pointer") || strings.Contains(arg, "ptr")) {
				out = append(out, fset.Position(x.Pos()).String()+": a JSON pointer split by hand")
			}
		}
		return true
	})
	return out
}

// TestOnePointerHome: JSON pointers are split and escaped by
// internal/jsonptr only (Split unescapes what Escape escaped).
func TestOnePointerHome(t *testing.T) {
	goSources(t, func(file string, fset *token.FileSet, src []byte, f *ast.File) {
		if strings.HasPrefix(file, pointerHome) {
			return
		}
		for _, p := range pointerHandling(fset, src, f) {
			t.Errorf("%s (%s): use jsonptr.Split and jsonptr.Escape", p, file)
		}
	})
	// The check itself, on planted violations.
	for _, planted := range []string{
		"package p\nimport \"strings\"\nfunc f(pointer string) []string { return strings.Split(strings.Trim(pointer, \"/\"), \"/\") }\n",
		"package p\nimport \"strings\"\nvar r = strings.NewReplacer(\"~1\", \"/\")\n",
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "planted.go", planted, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(pointerHandling(fset, []byte(planted), f)) == 0 {
			t.Errorf("the check misses a planted violation:\n%s", planted)
		}
	}
}
