package schema

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/manifest"
)

// The API server defaults a custom resource before it validates it: every
// property its CRD's structural schema gives a default is set where the
// object lacks it (or holds a null the schema does not allow). A required
// property with a default is therefore never missing, and a oneOf that
// tells alternatives apart by a defaulted field sees the default. Without
// this step real objects, upstream examples among them, get errors the
// API server never gives. repotool applies the same defaults, to a copy,
// before validating; the object itself and the lines of findings are
// unchanged.

// hasDefaults reports whether any property in a structural schema has a
// default.
func hasDefaults(s map[string]any) bool {
	if props, ok := s["properties"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if p, ok := props[k].(map[string]any); ok {
				if _, ok := p["default"]; ok || hasDefaults(p) {
					return true
				}
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if p, ok := s[k].(map[string]any); ok && hasDefaults(p) {
			return true
		}
	}
	return false
}

// applyDefaults sets the defaults of structural schema s in v, as the API
// server's structural defaulting does: in objects, for absent properties
// and for nulls the schema does not allow; then inside every property,
// array item and additional property. It adds the JSON pointer of every
// value it sets (v being at ptr) to set, and reports whether v changed.
// Defaults are not applied in the alternatives of allOf, anyOf or oneOf:
// the API server does not allow them there.
func applyDefaults(v any, s map[string]any, ptr string, set map[string]bool) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			p, ok := props[k].(map[string]any)
			if !ok {
				continue
			}
			if def, ok := p["default"]; ok {
				if x, present := v[k]; !present || x == nil && p["nullable"] != true {
					v[k] = manifest.CopyValue(def) // defaults put in several places share no maps or slices
					set[ptr+"/"+jsonptr.Escape(k)] = true
					changed = true
				}
			}
			if x, ok := v[k]; ok && applyDefaults(x, p, ptr+"/"+jsonptr.Escape(k), set) {
				changed = true
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if _, known := props[k]; !known && applyDefaults(v[k], ap, ptr+"/"+jsonptr.Escape(k), set) {
					changed = true
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				if applyDefaults(x, items, ptr+"/"+strconv.Itoa(i), set) {
					changed = true
				}
			}
		}
	}
	return changed
}

// noteDefaulted says, in the message of an error at or under a value the
// object does not set, that the value is the CRD's default: the finding
// names a field the user never wrote.
func noteDefaulted(errs []FieldError, set map[string]bool) {
	for i, e := range errs {
		for p := e.Path; p != ""; p = p[:strings.LastIndex(p, "/")] {
			if set[p] {
				errs[i].Message += " (the field is not set: this is the CRD's default)"
				break
			}
		}
	}
}
