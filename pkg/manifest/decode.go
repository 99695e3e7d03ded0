package manifest

import (
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// Decode parses one YAML document into an object's content, with exactly
// the result of sigs.k8s.io/yaml's Unmarshal into a map[string]any (what
// Helm, kubectl and Argo CD read manifests with): YAML 1.1 scalars, anchors
// and merge keys, the last of duplicate keys, non-string keys as strings,
// and every number a float64. It returns nil for a document of comments
// only.
//
// sigs.k8s.io/yaml gets there by way of JSON: it decodes the YAML, encodes
// the tree as JSON and decodes that. Decode converts the decoded tree
// directly, as the JSON round trip would, and leaves to sigs.k8s.io/yaml
// every document the direct way does not cover, so that errors and the
// rare cases (a top level that is not a mapping, a key of a complex type,
// a number JSON cannot hold, bytes that are not UTF-8, a !!timestamp) are
// its own. TestDecodeLikeSigsYAML and FuzzDecode hold the two to the same
// results.
func Decode(doc []byte) (map[string]any, error) {
	return decode(doc, yamlv2.Unmarshal, func(doc []byte, out any) error { return yaml.Unmarshal(doc, out) })
}

// DecodeStrict is Decode as sigs.k8s.io/yaml's UnmarshalStrict reads a
// document (what kubeconform validates with): a key written twice in one
// mapping is an error, sigs.k8s.io/yaml's own. TestDecodeStrictLikeSigsYAML
// and FuzzDecodeStrict hold the two to the same results.
func DecodeStrict(doc []byte) (map[string]any, error) {
	return decode(doc, yamlv2.UnmarshalStrict, func(doc []byte, out any) error { return yaml.UnmarshalStrict(doc, out) })
}

// decode is Decode, with the YAML decoder it converts from (direct) and
// the sigs.k8s.io/yaml function it leaves the rest to (sigs).
func decode(doc []byte, direct, sigs func([]byte, any) error) (map[string]any, error) {
	var tree any
	if direct(doc, &tree) == nil {
		switch t := tree.(type) {
		case nil:
			return nil, nil
		case map[any]any:
			if m, ok := jsonMap(t); ok {
				return m, nil
			}
		}
	}
	var content map[string]any
	err := sigs(doc, &content)
	return content, err
}

// jsonMap is a decoded mapping as JSON would give it back; false when
// Decode must leave it to sigs.k8s.io/yaml.
func jsonMap(m map[any]any) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		key, ok := jsonKey(k)
		if !ok {
			return nil, false
		}
		if _, dup := out[key]; dup {
			// Two keys with one spelling (1 and "1"): which wins is
			// sigs.k8s.io/yaml's to say.
			return nil, false
		}
		if out[key], ok = jsonValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

// jsonKey is a mapping key as sigs.k8s.io/yaml spells it. Only the common
// ones: the others go the JSON way.
func jsonKey(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, utf8.ValidString(k)
	case bool:
		if k {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// jsonValue is a decoded value as JSON would give it back: numbers as
// float64.
func jsonValue(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	case float64:
		return v, v-v == 0 // not NaN or an infinity, which JSON cannot hold
	case map[any]any:
		return jsonMap(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			var ok bool
			if out[i], ok = jsonValue(x); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// CopyContent deep-copies an object's content (or any tree of maps and
// lists decoded from YAML or JSON); the scalars are shared.
func CopyContent(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return CopyValue(m).(map[string]any)
}

// CopyValue deep-copies a value decoded from YAML or JSON: its maps and
// lists are new, its scalars shared.
func CopyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = CopyValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = CopyValue(x)
		}
		return out
	default:
		return v
	}
}
