package output

import (
	"io"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/values"
)

// valuesYAML writes the values as YAML, keys sorted; with origins, each
// value's origin is a comment on its line.
type valuesYAML struct{}

func (valuesYAML) Name() string { return "yaml" }

func (valuesYAML) Write(w io.Writer, e *values.Effective, opts ValuesOptions) error {
	if _, err := selected(e, opts); err != nil {
		return err
	}
	v, _ := e.Get(opts.Path)
	n, err := valueNode(e, v, slices.Clone(opts.Path), opts.Origin)
	if err != nil {
		return err
	}
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
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
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
	o := e.Origin(path)
	n := &yaml.Node{}
	if o != nil && o.From.Secret {
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: secretMarker(o.From)}
	} else if err := n.Encode(v); err != nil {
		return nil, err
	}
	if origin {
		n.LineComment = describeOrigin(o)
	}
	return n, nil
}
