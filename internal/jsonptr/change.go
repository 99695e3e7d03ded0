package jsonptr

import (
	"fmt"
	"maps"
	"slices"
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
