package schema

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"
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
// array item and additional property. It reports whether v changed.
// Defaults are not applied in the alternatives of allOf, anyOf or oneOf:
// the API server does not allow them there.
func applyDefaults(v any, s map[string]any) bool {
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
					v[k] = deepCopyJSON(def)
					changed = true
				}
			}
			if x, ok := v[k]; ok && applyDefaults(x, p) {
				changed = true
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if _, known := props[k]; !known && applyDefaults(v[k], ap) {
					changed = true
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for _, x := range v {
				if applyDefaults(x, items) {
					changed = true
				}
			}
		}
	}
	return changed
}

// deepCopyJSON copies a value decoded from JSON, so that defaults put in
// several places of one object do not share maps or slices.
func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopyJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopyJSON(x)
		}
		return out
	}
	return v
}

// defaulted returns doc as JSON with the defaults of structural schema s
// applied, or nil when there is nothing to apply or doc cannot be decoded
// (kubeconform then reports what is wrong with it). Numbers keep their
// exact text.
func defaulted(doc []byte, s map[string]any) []byte {
	js, err := yaml.YAMLToJSONStrict(doc) // duplicate keys are kubeconform's to report
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj any
	if err := dec.Decode(&obj); err != nil || !applyDefaults(obj, s) {
		return nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return out
}
