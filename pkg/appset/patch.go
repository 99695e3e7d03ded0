package appset

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// patch applies an ApplicationSet's templatePatch, rendered for one
// Application, as Argo CD's controller does (a strategic merge patch on
// the Application type): mappings merge key by key, null removes a key,
// a list replaces the list, but metadata.finalizers are joined; the
// patch cannot change spec.project. line is where the rendered patch's
// first line is in the ApplicationSet's file.
func patch(app *yaml.Node, rendered string, line int) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(rendered), &doc); err != nil {
		l, msg := yamlpos.ErrorLine(err)
		return nil, &Error{Line: line + max(l-1, 0), Msg: "templatePatch, rendered, is not YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return app, nil
	}
	p := doc.Content[0]
	shift(p, line-1)
	if p.Kind != yaml.MappingNode {
		return nil, &Error{Line: p.Line, Msg: "templatePatch, rendered, is not a mapping of the Application's fields"}
	}
	project, _ := yamlpos.Lookup(app, "spec", "project")
	out, err := merge(app, p, "")
	if err != nil {
		return nil, err
	}
	if spec, _ := yamlpos.Lookup(out, "spec"); spec != nil {
		setKey(spec, "project", project)
	}
	return out, nil
}

// merge is dst with p merged into it (at path where, for finalizers).
func merge(dst, p *yaml.Node, where string) (*yaml.Node, error) {
	if p.Kind != yaml.MappingNode || dst == nil || dst.Kind != yaml.MappingNode {
		if where == ".metadata.finalizers" && dst != nil && dst.Kind == yaml.SequenceNode && p.Kind == yaml.SequenceNode {
			return union(dst, p), nil
		}
		return p, nil
	}
	out := *dst
	out.Content = append([]*yaml.Node(nil), dst.Content...)
	for i := 0; i+1 < len(p.Content); i += 2 {
		k, v := p.Content[i], p.Content[i+1]
		if strings.HasPrefix(k.Value, "$") {
			return nil, &Error{Line: k.Line,
				Msg: fmt.Sprintf("templatePatch: the directive %s: repotool does not apply strategic merge directives; write the fields themselves", k.Value)}
		}
		old, _ := yamlpos.Lookup(&out, k.Value)
		if v.ShortTag() == "!!null" {
			setKey(&out, k.Value, nil)
			continue
		}
		merged, err := merge(old, v, where+"."+k.Value)
		if err != nil {
			return nil, err
		}
		if old == nil {
			out.Content = append(out.Content, k, merged)
		} else {
			setKey(&out, k.Value, merged)
		}
	}
	return &out, nil
}

// union is the list a followed by b's items a does not have.
func union(a, b *yaml.Node) *yaml.Node {
	out := *a
	out.Content = append([]*yaml.Node(nil), a.Content...)
	for _, item := range b.Content {
		found := false
		for _, have := range a.Content {
			found = found || have.Value == item.Value
		}
		if !found {
			out.Content = append(out.Content, item)
		}
	}
	return &out
}

// setKey sets key's value in the mapping m; nil removes it.
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		if v == nil {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
		} else {
			m.Content[i+1] = v
		}
		return
	}
}

// shift moves n's lines by d.
func shift(n *yaml.Node, d int) {
	n.Line += d
	for _, c := range n.Content {
		shift(c, d)
	}
}
