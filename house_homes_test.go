package repotool_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// home is one fact the code decides in one place: the names that decide
// it (a function or method called by that name, or a string literal) and
// the files allowed to use them. A second place that decides it again is
// how two commands come to disagree.
type home struct {
	fact    string
	calls   []string // selector or function names whose call decides the fact
	strings []string // string literals that spell it
	fields  []string // selector chains that read it ("Render.Helm" matches cfg.Render.Helm)
	source  []string // text that decides it, as written in the code
	imports []string // packages whose import decides it
	files   []string // the files allowed to
}

var homes = []home{
	{fact: "which file is a cluster's sealed-secrets certificate", calls: []string{"CertificateFor"},
		files: []string{"pkg/config/hydrate.go", "pkg/layout/inputs.go"}},
	{fact: "that an age recipient names a plugin that age would run", strings: []string{"age1", "age1pq1"},
		files: []string{"pkg/sopsfile/keys.go"}},
	{fact: "SOPS's configuration file, and which of its creation rules covers a path", strings: []string{".sops.yaml", "path_regex"},
		calls: []string{"LoadCreationRuleForFile"}, files: []string{"pkg/sopsfile/rules.go", "pkg/decrypt/encrypt.go"}},
	{fact: "the Helm a run renders as (flag, else render.helm, else v3)", fields: []string{"Render.Helm"},
		files: []string{"pkg/layout/model.go", "pkg/config/render.go"}},
	{fact: "which YAML documents of a values file a Helm reads", source: []string{"docs[:1]"}, files: []string{"internal/helmvalues/helmvalues.go"}},
	{fact: "which fields an Application's ignoreDifferences entry covers", fields: []string{"JSONPointers", "JQPathExpressions"},
		files: []string{"pkg/config/ignoredifferences.go", "pkg/lint/admit.go"}}, // admit.go writes an entry, reads none
	{fact: "where renderings and outputs are held for later (the pool of texts)", imports: []string{module + "internal/textpool"},
		files: []string{"pkg/held/store.go", "pkg/held/blobs.go"}},
	// "sops" also names a secrets mode (config) and SOPS's module (version).
	{fact: "the key of SOPS's metadata, which no walk over values counts", strings: []string{"sops"},
		files: []string{"pkg/sopsfile/sopsfile.go", "pkg/config/hydrate.go", "cmd/repotool/cli/version.go"}},
}

// TestOneHome: each fact of homes is decided in its own files only, and
// each home is still used (a home that moved must be moved here too).
func TestOneHome(t *testing.T) {
	used := map[string]bool{}
	goSources(t, func(file string, fset *token.FileSet, src []byte, f *ast.File) {
		if strings.HasPrefix(file, "tools/") || strings.HasPrefix(file, "internal/testing/") {
			return
		}
		for _, h := range homes {
			for _, at := range decides(fset, src, f, h) {
				if slices.Contains(h.files, file) {
					used[h.fact] = true
					continue
				}
				t.Errorf("%s: decides %s again; its home is %s", at, h.fact, strings.Join(h.files, ", "))
			}
		}
	})
	for _, h := range homes {
		if !used[h.fact] {
			t.Errorf("%s: no file of its home decides it any more: update homes", h.fact)
		}
	}
}

// decides are the places in f that use one of h's names.
func decides(fset *token.FileSet, src []byte, f *ast.File, h home) []string {
	var out []string
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && slices.Contains(h.imports, p) {
			out = append(out, fset.Position(imp.Pos()).String())
		}
	}
	for _, text := range h.source {
		if i := strings.Index(string(src), text); i >= 0 {
			out = append(out, fmt.Sprintf("%s:%d", fset.File(f.Pos()).Name(), 1+strings.Count(string(src[:i]), "\n")))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && slices.Contains(h.strings, s) {
				out = append(out, fset.Position(x.Pos()).String())
			}
		case *ast.SelectorExpr:
			chain := types.ExprString(x)
			for _, f := range h.fields {
				if chain == f || strings.HasSuffix(chain, "."+f) {
					out = append(out, fset.Position(x.Pos()).String())
				}
			}
		case *ast.CallExpr:
			name := ""
			switch fn := x.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if slices.Contains(h.calls, name) {
				out = append(out, fset.Position(x.Pos()).String())
			}
		}
		return true
	})
	return out
}
