package schema

import (
	"maps"
	"strings"
)

// Convert turns an OpenAPI schema (a Kubernetes swagger definition or a
// CRD's openAPIV3Schema) into the strict JSON schema kubeconform validates
// with:
//
//   - every typed value may also be null (manifests often say `key: null`,
//     which the API server accepts), except where an enum lists the values;
//   - an object with properties accepts no other keys (strict mode), unless
//     it preserves unknown fields;
//   - int-or-string values accept both (format int-or-string, or
//     x-kubernetes-int-or-string);
//   - descriptions and extensions are dropped.
//
// $refs are kept; Inline resolves them. Convert does not modify its input.
func Convert(in map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"$ref", "enum", "required", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "multipleOf"} {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	intOrString := in["format"] == "int-or-string" || in["x-kubernetes-int-or-string"] == true
	if intOrString {
		delete(out, "format")
		out["type"] = []any{"string", "integer", "null"}
	} else if t, ok := in["type"].(string); ok {
		out["type"] = []any{t, "null"}
	}
	if props, ok := in["properties"].(map[string]any); ok {
		conv := make(map[string]any, len(props))
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				conv[k] = Convert(m)
			}
		}
		out["properties"] = conv
		if _, has := in["additionalProperties"]; !has && in["x-kubernetes-preserve-unknown-fields"] != true {
			out["additionalProperties"] = false
		}
	}
	switch ap := in["additionalProperties"].(type) {
	case map[string]any:
		out["additionalProperties"] = Convert(ap)
	case bool:
		out["additionalProperties"] = ap
	}
	if items, ok := in["items"].(map[string]any); ok {
		out["items"] = Convert(items)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := in[k].([]any); ok {
			var conv []any
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					c := Convert(m)
					// Alternatives only constrain; their objects stay open so
					// that the alternatives do not reject each other's keys.
					delete(c, "additionalProperties")
					conv = append(conv, c)
				}
			}
			out[k] = conv
		}
	}
	if in["x-kubernetes-preserve-unknown-fields"] == true {
		delete(out, "additionalProperties")
	}
	return out
}

// specialDefinitions are Kubernetes types whose swagger schema does not say
// what YAML accepts.
var specialDefinitions = map[string]map[string]any{
	// A quantity is written as a string ("500m") or a number (2).
	"io.k8s.apimachinery.pkg.api.resource.Quantity":   {"type": []any{"string", "number", "null"}},
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": []any{"string", "integer", "null"}},
}

// ConvertDefinitions converts every swagger definition.
func ConvertDefinitions(defs map[string]any) map[string]any {
	out := make(map[string]any, len(defs))
	for name, d := range defs {
		if special, ok := specialDefinitions[name]; ok {
			out[name] = maps.Clone(special)
			continue
		}
		if m, ok := d.(map[string]any); ok {
			out[name] = Convert(m)
		}
	}
	return out
}

const refPrefix = "#/definitions/"

// Inline returns a standalone schema for definition name: every $ref
// replaced by the converted definition it names. A reference back to a
// definition being expanded (JSONSchemaProps refers to itself) is replaced
// by an open schema.
func Inline(defs map[string]any, name string) map[string]any {
	return inline(defs, defs[name], map[string]bool{name: true}).(map[string]any)
}

func inline(defs map[string]any, v any, stack map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, refPrefix) {
			name := strings.TrimPrefix(ref, refPrefix)
			if stack[name] || defs[name] == nil {
				return map[string]any{}
			}
			stack[name] = true
			res := inline(defs, defs[name], stack)
			delete(stack, name)
			return res
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = inline(defs, x, stack)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = inline(defs, x, stack)
		}
		return out
	}
	return v
}
