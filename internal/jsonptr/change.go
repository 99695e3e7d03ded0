package jsonptr

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// EachChange calls f, in field order, with each JSON pointer (under
// prefix p) where a and b differ and the values there: the leaves, the
// keys only one side has, the list items only one side has, and a node
// whose type differs. It is how diff tells a change's fields and
// admission tells what a mutating policy did.
func EachChange(p string, a, b any, f func(ptr string, old, new any)) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			f(p, a, b)
			return
		}
		keys := maps.Clone(av)
		for k, v := range bv {
			keys[k] = v
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			EachChange(p+"/"+Escape(k), av[k], bv[k], f)
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			f(p, a, b)
			return
		}
		for i := range max(len(av), len(bv)) {
			if i >= len(av) || i >= len(bv) {
				f(fmt.Sprintf("%s/%d", p, i), item(av, i), item(bv, i))
				continue
			}
			EachChange(fmt.Sprintf("%s/%d", p, i), av[i], bv[i], f)
		}
		return
	}
	if fmt.Sprintf("%T %v", a, a) != fmt.Sprintf("%T %v", b, b) {
		f(p, a, b)
	}
}

// Changed are the pointers EachChange finds.
func Changed(p string, a, b any) []string {
	var out []string
	EachChange(p, a, b, func(ptr string, _, _ any) { out = append(out, ptr) })
	return out
}

func item(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// With returns a copy of v whose field at tokens holds x, or, when remove
// is true, has no such field; the maps and lists on the way are copied, v
// itself is not changed. Missing maps on the way are made; a list index
// one past the end appends. A path that runs through a scalar, or a list
// index beyond the end, leaves v as it is.
func With(v any, tokens []string, x any, remove bool) any {
	if len(tokens) == 0 {
		if remove {
			return nil
		}
		return x
	}
	tok, rest := tokens[0], tokens[1:]
	switch c := v.(type) {
	case map[string]any:
		out := maps.Clone(c)
		if remove && len(rest) == 0 {
			delete(out, tok)
			return out
		}
		if _, ok := c[tok]; !ok && remove {
			return v
		}
		out[tok] = With(c[tok], rest, x, remove)
		return out
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i > len(c) || i == len(c) && (remove || len(rest) > 0) {
			return v
		}
		if remove && len(rest) == 0 {
			return slices.Delete(slices.Clone(c), i, i+1)
		}
		if i == len(c) {
			return append(slices.Clone(c), With(nil, rest, x, remove))
		}
		out := slices.Clone(c)
		out[i] = With(c[i], rest, x, remove)
		return out
	case nil:
		if remove {
			return nil
		}
		return map[string]any{tok: With(nil, rest, x, remove)}
	}
	return v
}
