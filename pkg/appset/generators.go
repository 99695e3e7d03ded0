package appset

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dario.cat/mergo"
	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/yamlpos"
)

// maxNesting is how deep matrix and merge generators nest: Argo CD reads
// a matrix or merge inside one, whose own generators are plain.
const maxNesting = 2

// generate is the parameter sets of the generator g; outer, for a
// matrix's second generator, are the first's parameters, rendered into
// g's strings first.
// pset is a parameter set, with the files it comes from: the inputs of
// the Application it makes, besides the ApplicationSet's file.
type pset struct {
	p    map[string]any
	from []string
}

// wrap are parameter sets that come from no file.
func wrap(ps []map[string]any) []pset {
	out := make([]pset, len(ps))
	for i, p := range ps {
		out[i] = pset{p: p}
	}
	return out
}

func (s *set) generate(g *yaml.Node, outer map[string]any, depth int) ([]pset, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	if _, _, err := kindOf(g); err != nil {
		return nil, err
	}
	if len(outer) > 0 {
		var err error
		if g, err = s.interpolate(g, outer, ""); err != nil {
			return nil, err
		}
	}
	kind, node, err := kindOf(g)
	if err != nil {
		return nil, err
	}
	if (kind == "matrix" || kind == "merge") && depth >= maxNesting {
		return nil, &Error{Line: node.Line, Msg: fmt.Sprintf("a %s generator nested this deep: Argo CD reads matrix and merge generators two levels deep", kind)}
	}
	var params []pset
	switch kind {
	case "list":
		params, err = s.list(node)
	case "clusters":
		params, err = s.clusters(node)
	case "git":
		params, err = s.git(node)
	case "matrix":
		params, err = s.matrix(node, depth)
	case "merge":
		params, err = s.merge(node, depth)
	}
	if err != nil {
		return nil, err
	}
	sel, _ := yamlpos.Lookup(g, "selector")
	if sel == nil || sel.ShortTag() == "!!null" {
		return params, nil
	}
	match, err := selector(sel)
	if err != nil {
		return nil, err
	}
	var out []pset
	for _, p := range params {
		if match(flatten(p.p)) {
			out = append(out, p)
		}
	}
	return out, nil
}

// interpolate renders the strings of the generator n (under the key
// parent) with params, as Argo CD renders a matrix's second generator;
// a values map's entry that names a parameter the first generator does
// not give is left for the generator's own rendering.
func (s *set) interpolate(n *yaml.Node, params map[string]any, parent string) (*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return s.r.renderNode(n, params)
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		if c.Content[i], err = s.r.renderNode(k, params); err != nil {
			return nil, err
		}
		switch {
		case k.Value == "values" && hasValues(parent) && v.Kind == yaml.MappingNode:
			c.Content[i+1], err = s.preResolve(v, params)
		default:
			c.Content[i+1], err = s.interpolate(v, params, k.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// hasValues reports whether the generator kind has a values map.
func hasValues(kind string) bool {
	return kind == "clusters" || kind == "git"
}

// preResolve renders a values map's entries with params, keeping an
// entry that names a missing parameter as it is.
func (s *set) preResolve(v *yaml.Node, params map[string]any) (*yaml.Node, error) {
	opts := s.r.options
	if s.r.goTemplate {
		opts = append(slices.DeleteFunc(slices.Clone(opts), func(o string) bool { return strings.HasPrefix(o, "missingkey=") }), "missingkey=error")
	}
	c := *v
	c.Content = slices.Clone(v.Content)
	for i := 1; i < len(c.Content); i += 2 {
		e := *c.Content[i]
		out, err := s.r.replace(e.Value, params)
		if s.r.goTemplate {
			out, err = s.r.goReplace(e.Value, params, opts)
		}
		switch {
		case err != nil && (strings.Contains(err.Error(), "map has no entry for key") || strings.Contains(err.Error(), "can't evaluate field")):
			continue
		case err != nil:
			return nil, &Error{Line: e.Line, Msg: fmt.Sprintf("values.%s: %v", c.Content[i-1].Value, err)}
		}
		e.Value = out
		c.Content[i] = &e
	}
	return &c, nil
}

// list is the list generator's elements and elementsYaml.
func (s *set) list(n *yaml.Node) ([]pset, error) {
	var out []pset
	if els, _ := yamlpos.Lookup(n, "elements"); els != nil && els.Kind == yaml.SequenceNode {
		for _, e := range els.Content {
			p, err := s.element(e)
			if err != nil {
				return nil, err
			}
			out = append(out, pset{p: p})
		}
	}
	if y, _ := yamlpos.Lookup(n, "elementsYaml"); y != nil && y.Value != "" {
		var more []map[string]any
		if err := sigsyaml.Unmarshal([]byte(y.Value), &more); err != nil {
			return nil, &Error{Line: y.Line, Msg: "elementsYaml: error unmarshling decoded ElementsYaml " + err.Error()}
		}
		out = append(out, wrap(more)...)
	}
	return out, nil
}

// element is one of a list generator's elements as parameters: as it is
// with goTemplate, else its strings (and values.<key>) alone.
func (s *set) element(e *yaml.Node) (map[string]any, error) {
	v, err := toAny(e)
	el, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, &Error{Line: e.Line, Msg: "a list element is a mapping"}
	}
	if s.r.goTemplate {
		return el, nil
	}
	var p map[string]any // nil for an empty element, as Argo CD's
	for _, k := range slices.Sorted(maps.Keys(el)) {
		if p == nil {
			p = map[string]any{}
		}
		if k != "values" {
			str, ok := el[k].(string)
			if !ok {
				return nil, &Error{Line: yamlpos.Line(e, e.Line, k), Msg: fmt.Sprintf("list element's %s is not a string, which only goTemplate reads", k)}
			}
			p[k] = str
			continue
		}
		vals, ok := el[k].(map[string]any)
		if !ok {
			return nil, &Error{Line: yamlpos.Line(e, e.Line, k), Msg: "list element's values is not a mapping"}
		}
		for vk, vv := range vals {
			str, ok := vv.(string)
			if !ok {
				return nil, &Error{Line: yamlpos.Line(e, e.Line, k), Msg: fmt.Sprintf("list element's values.%s is not a string, which only goTemplate reads", vk)}
			}
			p["values."+vk] = str
		}
	}
	return p, nil
}

// matrix is every pair of its two generators' parameter sets.
func (s *set) matrix(n *yaml.Node, depth int) ([]pset, error) {
	gens, _ := yamlpos.Lookup(n, "generators")
	if gens == nil || gens.Kind != yaml.SequenceNode || len(gens.Content) != 2 {
		return nil, &Error{Line: n.Line, Msg: "a matrix generator has two generators"}
	}
	first, err := s.generate(gens.Content[0], nil, depth+1)
	if err != nil {
		return nil, err
	}
	var out []pset
	for _, a := range first {
		second, err := s.generate(gens.Content[1], a.p, depth+1)
		if err != nil {
			return nil, err
		}
		for _, b := range second {
			p, err := s.pair(a.p, b.p)
			if err != nil {
				return nil, &Error{Line: n.Line, Msg: "matrix: " + err.Error()}
			}
			out = append(out, pset{p, slices.Concat(a.from, b.from)})
		}
		if len(out) > MaxApplications {
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("the matrix makes more than %d parameter sets", MaxApplications)}
		}
	}
	return out, nil
}

// pair joins a matrix's parameter sets: a over b with goTemplate; else
// as strings, a key both give differently being an error.
func (s *set) pair(a, b map[string]any) (map[string]any, error) {
	if s.r.goTemplate {
		tmp := map[string]any{}
		if err := mergo.Merge(&tmp, deepCopy(b), mergo.WithOverride); err != nil {
			return nil, err
		}
		if err := mergo.Merge(&tmp, deepCopy(a), mergo.WithOverride); err != nil {
			return nil, err
		}
		return tmp, nil
	}
	out := map[string]any{}
	for k, v := range a {
		out[k] = fmt.Sprintf("%v", v)
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		v := fmt.Sprintf("%v", b[k])
		if cur, ok := out[k]; ok && cur != v {
			return nil, fmt.Errorf("found duplicate key %s with different value, a: %s ,b: %s", k, cur, v)
		}
		out[k] = v
	}
	return out, nil
}

// merge is its first generator's parameter sets, each with those of the
// others that have the same mergeKeys' values merged in.
func (s *set) merge(n *yaml.Node, depth int) ([]pset, error) {
	var m struct {
		MergeKeys []string `yaml:"mergeKeys"`
	}
	if err := n.Decode(&m); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return nil, &Error{Line: line, Msg: msg}
	}
	gens, _ := yamlpos.Lookup(n, "generators")
	if gens == nil || gens.Kind != yaml.SequenceNode || len(gens.Content) < 2 {
		return nil, &Error{Line: n.Line, Msg: "a merge generator has two generators or more"}
	}
	if len(m.MergeKeys) == 0 {
		return nil, &Error{Line: n.Line, Msg: "a merge generator has mergeKeys"}
	}
	var base []pset
	var byKey map[string]int
	globs := len(s.globs)
	for i, g := range gens.Content {
		sets, err := s.generate(g, nil, depth+1)
		if err != nil {
			return nil, err
		}
		keyed, err := mergeKeyed(m.MergeKeys, sets)
		if err != nil {
			return nil, &Error{Line: g.Line, Msg: err.Error()}
		}
		if i == 0 {
			base, byKey = sets, keyed
			continue
		}
		for k, j := range keyed {
			b, ok := byKey[k]
			if !ok {
				continue
			}
			if s.r.goTemplate {
				if err := mergo.Merge(&base[b].p, deepCopy(sets[j].p), mergo.WithOverride); err != nil {
					return nil, &Error{Line: g.Line, Msg: err.Error()}
				}
			} else {
				maps.Copy(base[b].p, sets[j].p)
			}
			base[b].from = append(base[b].from, sets[j].from...)
		}
	}
	// A file that a generator after the first finds may merge into any
	// of them: the folders their patterns list are inputs of each.
	for _, g := range s.globs[globs:] {
		for i := range base {
			base[i].from = append(base[i].from, globBase(g))
		}
	}
	return base, nil
}

// mergeKeyed indexes sets by their mergeKeys' values, which must differ.
func mergeKeyed(keys []string, sets []pset) (map[string]int, error) {
	out := map[string]int{}
	for i, p := range sets {
		k := map[string]any{}
		for _, mk := range keys {
			k[mk] = p.p[mk]
		}
		data, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		if _, dup := out[string(data)]; dup {
			return nil, fmt.Errorf("the parameters from a generator were not unique by the given mergeKeys, "+
				"Merge requires all param sets to be unique. Duplicate key was %s", data)
		}
		out[string(data)] = i
	}
	return out, nil
}

// deepCopy copies a parameter set, so that merging into one never
// changes another that shares its maps.
func deepCopy(p map[string]any) map[string]any {
	v, _ := deepCopyValue(p).(map[string]any)
	return v
}

func deepCopyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyValue(e)
		}
		return out
	case map[string]string:
		return maps.Clone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyValue(e)
		}
		return out
	case []string:
		return slices.Clone(x)
	}
	return v
}
