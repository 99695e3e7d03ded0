package engine

import (
	"fmt"
	"reflect"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
)

// nestingFuncs are dict, list, set, append and the rest, bound to one
// rendering's count of the values they nested, and set and merge refusing
// to make a dict that holds itself.
func (r *run) nestingFuncs(sprig template.FuncMap) template.FuncMap {
	count := func(vals ...any) error {
		if !nests(vals) {
			return nil
		}
		if r.nested++; r.nested > MaxNesting {
			return limitError(fmt.Sprintf("the templates nested dicts and lists in each other more than %d times; values nested that deep cannot be printed "+
				"(repotool's limit)", MaxNesting))
		}
		return nil
	}
	fm := template.FuncMap{
		"dict": func(v ...any) (map[string]any, error) {
			var vals []any
			for i := 1; i < len(v); i += 2 {
				vals = append(vals, v[i])
			}
			if err := count(vals...); err != nil {
				return nil, err
			}
			return sprig["dict"].(func(...any) map[string]any)(v...), nil
		},
		"set": func(d map[string]any, key string, value any) (map[string]any, error) {
			if holds(reflect.ValueOf(value), d, 0) {
				return nil, limitError(fmt.Sprintf("the value set at %q holds the dict it is set in: a dict that holds itself cannot be printed", key))
			}
			if err := count(value); err != nil {
				return nil, err
			}
			d[key] = value
			return d, nil
		},
	}
	list := func(v ...any) ([]any, error) {
		if err := count(v...); err != nil {
			return nil, err
		}
		return v, nil
	}
	fm["list"], fm["tuple"] = list, list
	for _, name := range []string{"append", "push", "prepend", "mustAppend", "mustPush", "mustPrepend"} {
		f := reflect.ValueOf(sprig[name])
		fm[name] = func(list any, v any) ([]any, error) {
			if err := count(v); err != nil {
				return nil, err
			}
			out := f.Call([]reflect.Value{reflect.ValueOf(&list).Elem(), reflect.ValueOf(&v).Elem()})
			if len(out) == 2 && !out[1].IsNil() {
				return nil, out[1].Interface().(error)
			}
			res, _ := out[0].Interface().([]any)
			return res, nil
		}
	}
	for _, name := range []string{"merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite"} {
		f := reflect.ValueOf(sprig[name])
		fm[name] = func(dst map[string]any, srcs ...map[string]any) (any, error) {
			for _, src := range srcs {
				if reflect.ValueOf(src).Pointer() != reflect.ValueOf(dst).Pointer() && holds(reflect.ValueOf(src), dst, 0) {
					return nil, limitError("a dict merged into another holds it: a dict that holds itself cannot be printed")
				}
			}
			in := []reflect.Value{reflect.ValueOf(dst)}
			for _, src := range srcs {
				in = append(in, reflect.ValueOf(src))
			}
			out := f.Call(in)
			if len(out) == 2 && !out[1].IsNil() {
				return nil, out[1].Interface().(error)
			}
			return out[0].Interface(), nil
		}
	}
	return fm
}

// nests reports whether any of vals is a map, a list or a struct, which a
// new dict or list holding it nests one level deeper.
func nests(vals []any) bool {
	for _, v := range vals {
		switch reflect.ValueOf(v).Kind() {
		case reflect.Map, reflect.Slice, reflect.Array, reflect.Pointer, reflect.Struct:
			return true
		}
	}
	return false
}

// holds reports whether v is, or holds at any depth, the dict d.
func holds(v reflect.Value, d map[string]any, depth int) bool {
	if depth > maxDepth {
		return true
	}
	switch v.Kind() {
	case reflect.Interface:
		return !v.IsNil() && holds(v.Elem(), d, depth+1)
	case reflect.Map:
		if v.Pointer() == reflect.ValueOf(d).Pointer() {
			return true
		}
		if !mayHold(v.Type().Elem()) {
			return false
		}
		for it := v.MapRange(); it.Next(); {
			if holds(it.Value(), d, depth+1) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if !mayHold(v.Type().Elem()) {
			return false
		}
		for i := range v.Len() {
			if holds(v.Index(i), d, depth+1) {
				return true
			}
		}
	}
	return false
}

// mayHold reports whether items of type t may be or hold a dict.
func mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Map, reflect.Slice, reflect.Array:
		return true
	}
	return false
}

// MaxDocumentDepth bounds how deep fromToml's document may nest arrays and
// inline tables: the TOML parser descends into each on the Go stack, and a
// string of brackets a few million deep (which repeat makes within
// MaxValueSize) overflowed it. fromYaml's and fromJson's parsers stop at
// the same depth themselves.
const MaxDocumentDepth = 10_000

// fromTOML is fromToml: Helm's (a document that does not parse gives its
// message under "Error"), failing the template instead when the document
// nests deeper than MaxDocumentDepth.
func fromTOML(doc string) (map[string]any, error) {
	if tomlDepth(doc) > MaxDocumentDepth {
		return nil, limitError(fmt.Sprintf("the TOML document nests arrays and inline tables more than %d deep (repotool's limit)", MaxDocumentDepth))
	}
	return decodeMap(toml.Unmarshal)(doc), nil
}

// tomlDepth is how deep doc nests arrays and inline tables, reading
// brackets and braces outside strings and comments (a table header's
// brackets open and close on one line: depth 2 at most).
func tomlDepth(doc string) int {
	depth, most := 0, 0
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; c {
		case '[', '{':
			if depth++; depth > most {
				most = depth
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '#':
			for i < len(doc) && doc[i] != '\n' {
				i++
			}
		case '"', '\'':
			quote := doc[i : i+1]
			if strings.HasPrefix(doc[i:], quote+quote+quote) {
				quote += quote + quote
			}
			end := i + len(quote)
			for end < len(doc) && !strings.HasPrefix(doc[end:], quote) {
				if c == '"' && doc[end] == '\\' {
					end++ // an escaped character, a quote included
				}
				end++
			}
			i = end + len(quote) - 1
		}
	}
	return most
}
