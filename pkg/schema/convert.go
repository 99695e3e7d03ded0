package schema

import (
	"maps"
	"slices"
	"strings"
)

// Convert turns an OpenAPI schema (a Kubernetes swagger definition or a
// CRD's openAPIV3Schema) into the strict JSON schema kubeconform validates
// with:
//
//   - every value may also be null (manifests often say `key: null`, which
//     the API server accepts: built-in types decode it as the zero value, and
//     custom resources have a null pruned where the schema does not allow
//     it), enums included;
//   - an object with properties accepts no other keys (strict mode), unless
//     it preserves unknown fields;
//   - int-or-string values accept both (format int-or-string, or
//     x-kubernetes-int-or-string);
//   - descriptions and extensions are dropped.
//
// $refs are kept; Inline resolves them. Convert does not modify its input.
func Convert(in map[string]any) map[string]any {
	return convert(in, true)
}

// convert is Convert; orNull says whether a null is accepted wherever a
// value is. It is false inside a "not", where accepting null would turn
// into rejecting it: the API server prunes the null before validating, so
// a "not" never sees it.
func convert(in map[string]any, orNull bool) map[string]any {
	out := map[string]any{}
	if enum, ok := in["enum"].([]any); ok {
		out["enum"] = enum
		if orNull && !slices.Contains(enum, nil) {
			out["enum"] = append(slices.Clone(enum), nil)
		}
	}
	for _, k := range keptKeywords {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	intOrString := in["format"] == "int-or-string" || in["x-kubernetes-int-or-string"] == true
	switch t, ok := in["type"].(string); {
	case intOrString:
		delete(out, "format")
		out["type"] = []any{"string", "integer"}
	case ok:
		out["type"] = []any{t}
	}
	if t, ok := out["type"].([]any); ok && orNull {
		out["type"] = append(t, "null")
	}
	if props, ok := in["properties"].(map[string]any); ok {
		conv := make(map[string]any, len(props))
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				conv[k] = convert(m, orNull)
			}
		}
		out["properties"] = conv
		if _, has := in["additionalProperties"]; !has && in["x-kubernetes-preserve-unknown-fields"] != true {
			out["additionalProperties"] = false
		}
	}
	switch ap := in["additionalProperties"].(type) {
	case map[string]any:
		out["additionalProperties"] = convert(ap, orNull)
	case bool:
		out["additionalProperties"] = ap
	}
	if items, ok := in["items"].(map[string]any); ok {
		out["items"] = convert(items, orNull)
	}
	if not, ok := in["not"].(map[string]any); ok {
		c := convert(not, false)
		delete(c, "additionalProperties") // as for the alternatives below
		out["not"] = c
	}
	convertAlternatives(in, out, orNull)
	if in["x-kubernetes-preserve-unknown-fields"] == true {
		delete(out, "additionalProperties")
	}
	return out
}

// keptKeywords are the keywords convert keeps as they are.
var keptKeywords = []string{
	"$ref",
	"required",
	"format",
	"pattern",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"minLength",
	"maxLength",
	"minItems",
	"maxItems",
	"uniqueItems",
	"minProperties",
	"maxProperties",
	"multipleOf",
}

// convertAlternatives converts allOf, anyOf and oneOf. Alternatives only
// constrain; their objects stay open so that the alternatives do not
// reject each other's keys.
func convertAlternatives(in, out map[string]any, orNull bool) {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := in[k].([]any); ok {
			var conv []any
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					c := convert(m, orNull)
					delete(c, "additionalProperties")
					conv = append(conv, c)
				}
			}
			out[k] = conv
		}
	}
}

// ConvertCRD converts a CRD version's openAPIV3Schema the way the API
// server reads it (structural schemas): the root, and every object marked
// x-kubernetes-embedded-resource, accept apiVersion, kind and metadata
// whether or not the schema lists them (many real CRDs list only spec and
// status), with metadata checked as the API server checks ObjectMeta (the
// CRD may constrain only its name and generateName); and a null is accepted
// wherever a value is, because the API server prunes a null it does not
// allow instead of rejecting the object (see Convert).
func ConvertCRD(in map[string]any) map[string]any {
	return Convert(objectFields(in))
}

// objectMeta is what the API server accepts under a custom resource's
// metadata: ObjectMeta's fields, typed as YAML writes them.
func objectMeta() map[string]any {
	str := func() map[string]any { return map[string]any{"type": "string"} }
	strMap := func() map[string]any {
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": str(), "generateName": str(), "namespace": str(), "uid": str(), "resourceVersion": str(), "selfLink": str(),
			"labels": strMap(), "annotations": strMap(),
			"finalizers":                 map[string]any{"type": "array", "items": str()},
			"generation":                 map[string]any{"type": "integer"},
			"creationTimestamp":          map[string]any{"type": "string"},
			"deletionTimestamp":          map[string]any{"type": "string"},
			"deletionGracePeriodSeconds": map[string]any{"type": "integer"},
			"ownerReferences": map[string]any{"type": "array", "items": map[string]any{
				"type":     "object",
				"required": []any{"apiVersion", "kind", "name", "uid"},
				"properties": map[string]any{
					"apiVersion": str(), "kind": str(), "name": str(), "uid": str(),
					"controller": map[string]any{"type": "boolean"}, "blockOwnerDeletion": map[string]any{"type": "boolean"},
				},
			}},
			"managedFields": map[string]any{"type": "array", "items": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		},
	}
}

// objectFields adds the implicit apiVersion, kind and metadata to a root
// or embedded-resource schema, and walks the rest for embedded resources.
func objectFields(in map[string]any) map[string]any {
	out := walkEmbedded(in)
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		if in["x-kubernetes-preserve-unknown-fields"] == true {
			return out // anything goes; nothing to add
		}
		props = map[string]any{}
	}
	props = maps.Clone(props)
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := props[k]; !ok {
			props[k] = map[string]any{"type": "string"}
		}
	}
	meta := objectMeta()
	if own, ok := props["metadata"].(map[string]any); ok {
		// Only name and generateName may be constrained by the CRD.
		ownProps, _ := own["properties"].(map[string]any)
		metaProps := meta["properties"].(map[string]any)
		for _, k := range []string{"name", "generateName"} {
			if c, ok := ownProps[k].(map[string]any); ok {
				metaProps[k] = c
			}
		}
	}
	props["metadata"] = meta
	out["properties"] = props
	return out
}

// embedded returns in with the implicit fields added to every
// x-kubernetes-embedded-resource object in it (in itself included). It
// returns a new map; in is not modified.
func embedded(in map[string]any) map[string]any {
	if in["x-kubernetes-embedded-resource"] == true {
		return objectFields(in)
	}
	return walkEmbedded(in)
}

// walkEmbedded is a copy of in whose properties, items and
// additionalProperties have been through embedded.
func walkEmbedded(in map[string]any) map[string]any {
	out := maps.Clone(in)
	if props, ok := in["properties"].(map[string]any); ok {
		conv := make(map[string]any, len(props))
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				v = embedded(m)
			}
			conv[k] = v
		}
		out["properties"] = conv
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if m, ok := in[k].(map[string]any); ok {
			out[k] = embedded(m)
		}
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
