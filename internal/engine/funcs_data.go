package engine

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/BurntSushi/toml"
	yamlv2 "go.yaml.in/yaml/v2"
	goyaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// The data-format functions Helm adds to sprig. Their contract, which
// charts rely on:
//   - to* never fail a template: toYaml and toJson print nothing for a
//     value they cannot encode, toToml prints the encoder's message;
//   - toYaml and toYamlPretty drop the one newline the encoder ends with,
//     so that `toYaml .x | nindent 4` leaves no blank line;
//   - from* never fail either: a document that does not decode gives a map
//     whose "Error" key holds the message, or a list whose only item is it.
//
// toYaml goes through JSON (sigs.k8s.io/yaml), so it honours json tags
// and sorts keys; toYamlPretty is the YAML encoder itself, indenting lists
// under their key.

func toYAML(v any) string {
	if tree, ok := yamlTree(v); ok {
		if out, err := yamlv2.Marshal(tree); err == nil {
			return strings.TrimSuffix(string(out), "\n")
		}
	}
	if out, err := yaml.Marshal(v); err == nil {
		return strings.TrimSuffix(string(out), "\n")
	}
	return ""
}

func toYAMLPretty(v any) string {
	var buf bytes.Buffer
	enc := goyaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func toJSON(v any) string {
	if out, err := json.Marshal(v); err == nil {
		return string(out)
	}
	return ""
}

func toTOML(v any) string {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(v); err != nil {
		return err.Error()
	}
	return buf.String()
}

// decoder is an unmarshal function of one of the formats.
type decoder func(data []byte, into any) error

func yamlDecoder(data []byte, into any) error { return yaml.Unmarshal(data, into) }

// decodeMap makes a from* function that decodes a document into a map.
func decodeMap(decode decoder) func(string) map[string]any {
	return func(doc string) map[string]any {
		out := map[string]any{}
		if err := decode([]byte(doc), &out); err != nil {
			out["Error"] = err.Error()
		}
		return out
	}
}

// decodeList makes a from*Array function that decodes a document into a
// list.
func decodeList(decode decoder) func(string) []any {
	return func(doc string) []any {
		out := []any{}
		if err := decode([]byte(doc), &out); err != nil {
			return []any{err.Error()}
		}
		return out
	}
}
