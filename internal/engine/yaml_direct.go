package engine

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// toYAML prints through sigs.k8s.io/yaml, as Helm's toYaml does: the value
// is encoded as JSON, the JSON decoded by the YAML library, and that
// printed. yamlTree makes the value the YAML library would decode from
// the JSON, directly, for the values templates pass (maps, lists and
// scalars from values files and dict and list); false leaves anything else
// to the JSON route. Only numbers change on the way: JSON prints each, and
// the YAML library reads the text back as an int, a uint64 or a float64.
// TestYAMLTreeLikeJSON, FuzzYAMLTree and FuzzFunctions hold the two
// routes alike.
func yamlTree(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, readsBack(v)
	case map[string]any:
		if v == nil {
			return nil, true // JSON's null
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !readsBack(k) {
				return nil, false
			}
			var ok bool
			if out[k], ok = yamlTree(x); !ok {
				return nil, false
			}
		}
		return out, true
	case []any:
		if v == nil {
			return nil, true
		}
		out := make([]any, len(v))
		for i, x := range v {
			var ok bool
			if out[i], ok = yamlTree(x); !ok {
				return nil, false
			}
		}
		return out, true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float64:
		text, err := json.Marshal(v)
		if err != nil {
			return nil, false // NaN or an infinity: JSON refuses them
		}
		return yamlNumber(string(text)), true
	}
	// A named map type (chartutil.Values), unless JSON prints it its own
	// way.
	rv := reflect.ValueOf(v)
	_, marshals := v.(json.Marshaler)
	_, text := v.(encoding.TextMarshaler)
	if rv.Kind() == reflect.Map && rv.Type().ConvertibleTo(mapType) && !marshals && !text {
		return yamlTree(rv.Convert(mapType).Interface())
	}
	return nil, false
}

var mapType = reflect.TypeFor[map[string]any]()

// yamlNumber reads a JSON number's text as the YAML library reads a plain
// scalar of digits: an int (an int64 when it does not fit), a uint64, or
// a float64.
func yamlNumber(text string) any {
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		if i == int64(int(i)) {
			return int(i)
		}
		return i
	}
	if u, err := strconv.ParseUint(text, 0, 64); err == nil {
		return u
	}
	f, _ := strconv.ParseFloat(text, 64)
	return f
}

// readsBack reports whether the YAML library reads s back from the JSON
// that encodes it: valid UTF-8, with none of the characters that JSON
// leaves as they are and the YAML reader refuses (DEL, the C1 controls,
// U+FFFE and U+FFFF) or reads otherwise (NEL, a line break to YAML 1.1).
func readsBack(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7F {
			return readsBackSlow(s[i:])
		}
	}
	return true
}

func readsBackSlow(s string) bool {
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return false // invalid UTF-8, which JSON replaces (or U+FFFD itself: either way, the JSON route)
		case r == 0x7F, r >= 0x80 && r <= 0x9F, r == 0xFFFE, r == 0xFFFF:
			return false
		}
	}
	return true
}
