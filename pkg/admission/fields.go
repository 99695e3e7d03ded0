package admission

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"

	"github.com/repotool/repotool/internal/jsonptr"
)

// Fields returns the fields of the object that a failed validation reads:
// JSON pointers, in the order the object holds them, of the values the
// expression (and the variables it uses) selects from object. Where it
// reads the elements of a list, only the elements that fail the validation
// on their own are kept: for "every container's image is pinned", the
// containers whose image is not. Nil when the decision is not a failed
// validation, or when the expression reads no field by name.
func (s *Set) Fields(ctx context.Context, d Decision) []string {
	if d.eval == nil || d.Validation < 0 || d.EvalError {
		return nil
	}
	p := d.eval.p.obj
	patterns := slices.Clone(exprPaths(p.Spec.Validations[d.Validation].Expression))
	vars := map[string]string{}
	for _, v := range p.Spec.Variables {
		vars[v.Name] = v.Expression
	}
	seen := map[string]bool{}
	for i := 0; i < len(patterns); i++ {
		if len(patterns[i]) == 2 && patterns[i][0] == "\x00variables" && !seen[patterns[i][1]] {
			seen[patterns[i][1]] = true
			patterns = append(patterns, exprPaths(vars[patterns[i][1]])...)
		}
	}
	patterns = slices.DeleteFunc(patterns, func(p []string) bool { return p[0] == "\x00variables" })
	content := d.eval.attrs.GetObject().(*unstructured.Unstructured).Object
	keep := map[string]map[int]bool{}
	for _, pat := range patterns {
		if i := slices.Index(pat, "*"); i > 0 {
			list := strings.Join(pat[:i], "/")
			if _, done := keep[list]; !done {
				keep[list] = s.failingElements(ctx, d, content, pat[:i])
			}
		}
	}
	var out []string
	for _, pat := range patterns {
		expand(content, pat, nil, keep, func(ptr []string) {
			enc := make([]string, len(ptr))
			for i, seg := range ptr {
				enc[i] = jsonptr.Escape(seg)
			}
			out = append(out, "/"+strings.Join(enc, "/"))
		})
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// Keep the fields read to the end: not spec when spec.replicas is read.
	var leaves []string
	for _, p := range out {
		if !slices.ContainsFunc(out, func(q string) bool { return strings.HasPrefix(q, p+"/") }) {
			leaves = append(leaves, p)
		}
	}
	return leaves
}

// maxNarrowed bounds the lists failingElements narrows: each element costs
// a copy of the object and an evaluation, so a longer list is kept whole.
const maxNarrowed = 64

// failingElements returns the indexes of the elements of the list at path
// that fail the decision's validation when the list holds only them; nil
// (keep all) when the list is not a list, has one element or more than
// maxNarrowed, or no element fails alone.
func (s *Set) failingElements(ctx context.Context, d Decision, content map[string]any, path []string) map[int]bool {
	found, _ := jsonptr.Get(content, path)
	list, ok := found.([]any)
	if !ok || len(list) < 2 || len(list) > maxNarrowed {
		return nil
	}
	out := map[int]bool{}
	last := path[len(path)-1]
	for i := range list {
		c, ok := deepCopy(content)
		if !ok {
			return nil
		}
		only := []any{runtime.DeepCopyJSONValue(list[i])}
		switch parent, _ := jsonptr.Get(c, path[:len(path)-1]); parent := parent.(type) {
		case map[string]any:
			parent[last] = only
		case []any: // the list is an element of a list: its index, found above
			j, _ := strconv.Atoi(last)
			parent[j] = only
		}
		if s.fails(ctx, d, c) {
			out[i] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// fails reports whether d's validation denies the object content.
func (s *Set) fails(ctx context.Context, d Decision, content map[string]any) bool {
	ev := d.eval
	a := ev.attrs
	attrs := admission.NewAttributesRecord(
		&unstructured.Unstructured{Object: content},
		nil,
		a.GetKind(),
		a.GetNamespace(),
		a.GetName(),
		a.GetResource(),
		"",
		admission.Create,
		nil,
		false,
		a.GetUserInfo(),
	)
	va, err := admission.NewVersionedAttributes(attrs, ev.kind, s.ifaces)
	if err != nil {
		return false
	}
	var prm runtime.Object
	if ev.param != nil {
		prm = ev.param
	}
	res := ev.p.c.validator.validate(ctx, ev.resource, va, prm, ev.namespace)
	return d.Validation < len(res.verdicts) && res.verdicts[d.Validation].kind == denied
}

// deepCopy copies content, false when it holds a value that is not JSON's
// (content that could not be normalized), which runtime.DeepCopyJSON
// refuses by panicking.
func deepCopy(content map[string]any) (c map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = nil, false
		}
	}()
	return runtime.DeepCopyJSON(content), true
}

// expand calls found with every concrete path pat matches in cur ("*"
// matching every element of a list, or key of a map), the elements of a
// list limited to those keep holds for it.
func expand(cur any, pat, prefix []string, keep map[string]map[int]bool, found func([]string)) {
	if len(pat) == 0 {
		found(slices.Clone(prefix))
		return
	}
	seg := pat[0]
	switch c := cur.(type) {
	case map[string]any:
		if seg == "*" {
			for _, k := range slices.Sorted(maps.Keys(c)) {
				expand(c[k], pat[1:], append(prefix, k), keep, found)
			}
			return
		}
		if v, ok := c[seg]; ok {
			expand(v, pat[1:], append(prefix, seg), keep, found)
		}
	case []any:
		only := keep[strings.Join(prefix, "/")]
		for i, v := range c {
			if seg == "*" && (only == nil || only[i]) || seg == strconv.Itoa(i) {
				expand(v, pat[1:], append(prefix, strconv.Itoa(i)), keep, found)
			}
		}
	}
}

// parseEnv parses expressions without checking them: the paths are read
// from the syntax alone.
var parseEnv, _ = cel.NewEnv()

// pathsOf memoizes exprPaths: the same few expressions fail for many
// objects. Its entries are never changed once stored.
var pathsOf sync.Map

// exprPaths returns the paths expr selects from object, as segments with
// "*" for the elements a comprehension ranges over, and a
// ["\x00variables", name] entry for each variable it uses. The result is
// shared: callers must not change it.
func exprPaths(expr string) [][]string {
	if got, ok := pathsOf.Load(expr); ok {
		return got.([][]string)
	}
	out := parsePaths(expr)
	pathsOf.Store(expr, out)
	return out
}

func parsePaths(expr string) [][]string {
	parsed, iss := parseEnv.Parse(expr)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	var out [][]string
	var walk func(e ast.Expr, scope map[string][]string)
	walk = func(e ast.Expr, scope map[string][]string) {
		if p, ok := pathOf(e, scope); ok && len(p) > 0 {
			out = append(out, p)
		}
		switch e.Kind() {
		case ast.SelectKind:
			walk(e.AsSelect().Operand(), scope)
		case ast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target(), scope)
			}
			for _, a := range c.Args() {
				walk(a, scope)
			}
		case ast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x, scope)
			}
		case ast.MapKind:
			for _, x := range e.AsMap().Entries() {
				walk(x.AsMapEntry().Key(), scope)
				walk(x.AsMapEntry().Value(), scope)
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange(), scope)
			inner := map[string][]string{}
			for k, v := range scope {
				inner[k] = v
			}
			if r, ok := pathOf(c.IterRange(), scope); ok {
				inner[c.IterVar()] = append(slices.Clone(r), "*")
			}
			walk(c.AccuInit(), inner)
			walk(c.LoopCondition(), inner)
			walk(c.LoopStep(), inner)
			walk(c.Result(), inner)
		}
	}
	walk(parsed.NativeRep().Expr(), map[string][]string{})
	return out
}

// pathOf is the path e denotes inside object: object itself, a
// comprehension variable ranging over a path, or a field or constant index
// of one of those. variables.<name> is returned as a variables entry.
func pathOf(e ast.Expr, scope map[string][]string) ([]string, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		if e.AsIdent() == "object" {
			return []string{}, true
		}
		p, ok := scope[e.AsIdent()]
		return p, ok
	case ast.SelectKind:
		sel := e.AsSelect()
		if op := sel.Operand(); op.Kind() == ast.IdentKind && op.AsIdent() == "variables" {
			return []string{"\x00variables", sel.FieldName()}, true
		}
		p, ok := pathOf(sel.Operand(), scope)
		if !ok || len(p) > 0 && p[0] == "\x00variables" {
			return nil, false
		}
		return append(slices.Clone(p), sel.FieldName()), true
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() != "_[_]" || len(c.Args()) != 2 || c.Args()[1].Kind() != ast.LiteralKind {
			return nil, false
		}
		p, ok := pathOf(c.Args()[0], scope)
		if !ok || len(p) > 0 && p[0] == "\x00variables" {
			return nil, false
		}
		switch k := c.Args()[1].AsLiteral().(type) {
		case types.String:
			return append(slices.Clone(p), string(k)), true
		case types.Int:
			return append(slices.Clone(p), strconv.Itoa(int(k))), true
		}
	}
	return nil, false
}
