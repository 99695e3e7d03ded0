package output

import (
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/values"
)

// valuesYAML writes the values as YAML, keys sorted; with origins, each
// value's origin is a comment on its line.
type valuesYAML struct{}

func (valuesYAML) Name() string { return "yaml" }

func (valuesYAML) Write(w io.Writer, e *values.Effective, opts ValuesOptions) error {
	v, ok := e.Get(opts.Path)
	if !ok {
		return missingPath(opts.Path)
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		n, err := valueNode(e, v, slices.Clone(opts.Path), opts.Origin)
		if err != nil {
			return err
		}
		return encodeNode(w, n)
	}
	// A block mapping prints key by key, so its keys are printed a part
	// at a time, each part's nodes let go once printed: the same bytes,
	// without the whole tree in memory (600,000 keys took 1.6 GB).
	keys := slices.Sorted(maps.Keys(m))
	for len(keys) > 0 {
		part := keys[:min(len(keys), valuesPart)]
		keys = keys[len(part):]
		n, err := mappingNode(e, m, part, slices.Clone(opts.Path), opts.Origin)
		if err != nil {
			return err
		}
		if err := encodeNode(w, n); err != nil {
			return err
		}
	}
	return nil
}

// valuesPart is how many keys of a map valuesYAML prints at a time.
const valuesPart = 1024

// encodeNode prints n as a YAML document, indented by two.
func encodeNode(w io.Writer, n *yaml.Node) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// valueNode builds the YAML node of v at path.
func valueNode(e *values.Effective, v any, path []string, origin bool) (*yaml.Node, error) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		return mappingNode(e, m, slices.Sorted(maps.Keys(m)), path, origin)
	}
	o := e.Origin(path)
	n, plain := plainNode(v)
	switch {
	case o != nil && o.From.Secret:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: secretMarker(o.From)}
	case !plain:
		n = &yaml.Node{}
		if err := n.Encode(v); err != nil {
			return nil, err
		}
	}
	if origin {
		n.LineComment = describeOrigin(o)
	}
	return n, nil
}

// mappingNode builds the YAML node of the keys of m at path, in order.
func mappingNode(e *values.Effective, m map[string]any, keys, path []string, origin bool) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: make([]*yaml.Node, 0, 2*len(keys))}
	for _, k := range keys {
		child, err := valueNode(e, m[k], append(path[:len(path):len(path)], k), origin)
		if err != nil {
			return nil, err
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
		if origin && child.Kind == yaml.SequenceNode && len(child.Content) > 0 {
			// A block list starts on the next line: its origin goes on
			// its key's.
			key.LineComment, child.LineComment = child.LineComment, ""
		}
		n.Content = append(n.Content, key, child)
	}
	return n, nil
}

// plainNode is the node yaml's Node.Encode makes of v, made without
// printing and parsing v (as Node.Encode does: a values file of 600,000
// keys spent most of its time there), for the values that print the same
// either way: booleans, integers, and strings that print plain (a
// letter or underscore, then letters, digits, _ . / -, and no word YAML
// reads as a boolean or null). false for any other value, which the
// caller encodes (TestPlainNode holds the two ways equal).
func plainNode(v any) (*yaml.Node, bool) {
	switch x := v.(type) {
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, true
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}, true
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}, true
	case string:
		if plainString(x) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}, true
		}
	}
	return nil, false
}

// plainString reports whether s prints as a plain YAML scalar read back as
// the same string: a letter or underscore, then letters, digits, _ . / -,
// and no word YAML reads as a boolean or null; or digits and letters
// alone, starting with a digit, that no number parser takes (a hash's
// hex digits).
func plainString(s string) bool {
	if s == "" {
		return false
	}
	if '0' <= s[0] && s[0] <= '9' {
		return digitsAndLetters(s)
	}
	if !(s[0] == '_' || 'a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-') {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

// digitsAndLetters reports whether s, which starts with a digit, holds
// digits and ASCII letters only, some letter among them, and is no number
// in any notation Go's or YAML's parsers read (0x1f, 0o17, 0b1, 1e5,
// 0x1p3).
func digitsAndLetters(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			letter = true
		case '0' <= c && c <= '9':
		default:
			return false
		}
	}
	if !letter {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil || !errors.Is(err, strconv.ErrSyntax) {
		return false
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil || !errors.Is(err, strconv.ErrSyntax) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil && errors.Is(err, strconv.ErrSyntax)
}
