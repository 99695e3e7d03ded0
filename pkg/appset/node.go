package appset

import (
	"bytes"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// renderNode is a copy of the template n with every string rendered with
// params: each string scalar and each mapping key, as Argo CD renders
// every string field of the Application (and the keys of its maps). The
// copy keeps the template's lines, so that what is wrong with an
// Application it makes is told at the ApplicationSet's line.
func (r renderer) renderNode(n *yaml.Node, params map[string]any) (*yaml.Node, error) {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != "!!str" {
			return &c, nil
		}
		v, err := r.replace(n.Value, params)
		if err != nil {
			return nil, &Error{Line: n.Line, Msg: err.Error()}
		}
		if v != n.Value && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			c.Style &^= yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle // quoted for its {{ }}: the encoder quotes what needs it
		}
		c.Value, c.Tag = v, "!!str"
		return &c, nil
	case yaml.AliasNode:
		return nil, &Error{Line: n.Line, Msg: "a YAML alias in an ApplicationSet's template: Argo CD's API server stores it expanded; write it out"}
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		out, err := r.renderNode(k, params)
		if err != nil {
			return nil, err
		}
		c.Content[i] = out
	}
	return &c, nil
}

// toAny is n as Argo CD reads it from the API server's JSON: numbers are
// float64, mappings map[string]any.
func toAny(n *yaml.Node) (any, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var v any
	if err := sigsyaml.Unmarshal(b.Bytes(), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// fromAny is v as a YAML node, for a templatePatch's result.
func fromAny(v any) (*yaml.Node, error) {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("not one YAML document")
	}
	return doc.Content[0], nil
}
