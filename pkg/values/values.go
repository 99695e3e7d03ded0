// Package values says where each of a target's values comes from: the
// layers Helm merges (a chart's values.yaml, its subcharts', then the
// repository's values files in merge order), each key's winning layer and
// line, the layers it overrode, and the lists a later layer replaced whole
// (Helm merges maps key by key and replaces everything else). It works on
// the YAML documents, never on decrypted content: a secret values file's
// keys are in clear (SOPS encrypts only values), so its leaves are traced
// like the others and marked secret. The package only models; it does not
// print, render or decrypt.
//
// Inside: where a target's values come from: `TraceLayers` follows the values
// documents Helm merges (chart and subchart defaults, then the values files)
// key by key, with each key's winning file and line, what it overrode, lists
// replaced whole and keys deleted by null; works on the YAML (a secret file's
// keys are in clear), never on decrypted content. `Effective` pairs the values
// a chart receives with that trace; `Compare` lists the keys whose values
// differ between targets (secret ones by presence only). `Undeclared` lists
// the keys a values file sets that the charts' defaults do not declare
// (`render.Renderer.ChartDefaults`, once per chart); with
// `render.Renderer.TemplatesMention` (a key some template names is taken as
// read) and `render.Renderer.Without` (a rendering without given keys) they
// are the evidence `values-unused` decides by. Light: no Helm, no SOPS.
// `render.Renderer.EffectiveValues` builds it. The trace finds what a leaf
// replaces by the paths below each path (`tracer`), not by every entry: a
// values file of 600,000 keys.
package values

import (
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// Source is where a value is set: a file and the line of its key.
type Source struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Secret bool   `json:"secret,omitempty"`
}

// Layer is one values document in merge order.
type Layer struct {
	// File is the document's file, relative to the repository root.
	File string
	// Doc is the document's top node (a mapping; anything else sets
	// nothing).
	Doc *yaml.Node
	// Prefix is where the document's keys go: nil for a repository file
	// or the chart's own values.yaml, the subchart's name (or alias) for a
	// subchart's.
	Prefix []string
	// Secret marks a SOPS-encrypted file: its values are never shown, and
	// its top-level sops key is metadata.
	Secret bool
}

// Origin is the history of one key path: the layer that set it last, and
// the earlier ones it overrode there or above (a leaf that replaced a map
// overrode the map's leaves).
type Origin struct {
	From     Source   `json:"from"`
	Overrode []Source `json:"overrode,omitempty"`
	// ReplacedList: From set a list where an earlier layer set one, and
	// replaced it whole.
	ReplacedList bool `json:"replacedList,omitempty"`
	// Deleted: From set null, which removes the key (and a chart default
	// under it) from what the chart receives.
	Deleted bool `json:"deleted,omitempty"`

	list bool // From set a list
}

// Trace is the origin of every key path the layers set, by path (keys
// joined with Sep). Maps are not entries of their own: their keys are.
type Trace map[string]*Origin

// Sep joins the keys of a path in a Trace.
const Sep = "\x00"

// Key is a path's key in a Trace.
func Key(path []string) string { return strings.Join(path, Sep) }

// TraceLayers follows layers in merge order.
func TraceLayers(layers []Layer) Trace {
	t := tracer{Trace{}, map[string]map[string]struct{}{}}
	for _, l := range layers {
		if l.Doc == nil || l.Doc.Kind != yaml.MappingNode {
			continue
		}
		t.merge(l, l.Doc, slices.Clone(l.Prefix), nil)
	}
	return t.Trace
}

// tracer makes a Trace, knowing the paths below each path (kids: a path's
// key to the keys of the entries and maps just below it), so that a leaf
// replacing a map finds what it replaces without a look at every entry
// (a values file of 600,000 keys took minutes).
type tracer struct {
	Trace
	kids map[string]map[string]struct{}
}

// below records the path p (of at least one key) under its parent.
func (t tracer) below(p []string) {
	if len(p) == 0 {
		return
	}
	parent := Key(p[:len(p)-1])
	if t.kids[parent] == nil {
		t.kids[parent] = map[string]struct{}{}
	}
	t.kids[parent][Key(p)] = struct{}{}
}

// merge records the entries of mapping n at path; inherited are the
// sources a map overrode where a leaf was, which its leaves overrode.
func (t tracer) merge(l Layer, n *yaml.Node, path []string, inherited []Source) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if l.Secret && sopsfile.IsMetadata(len(path)-len(l.Prefix), k.Value) {
			continue // SOPS metadata, not values
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		p := append(path[:len(path):len(path)], k.Value)
		t.below(p)
		src := Source{File: l.File, Line: k.Line, Secret: l.Secret}
		if v.Kind == yaml.MappingNode {
			// A map merges key by key into a map; where a leaf was, it
			// replaces the leaf.
			over := inherited
			if o, ok := t.Trace[Key(p)]; ok {
				over = compactSources(slices.Concat(over, o.Overrode, []Source{o.From}))
				delete(t.Trace, Key(p))
			}
			if len(v.Content) == 0 {
				// An empty map is a value of its own ({}), until a later
				// layer merges keys into it.
				t.Trace[Key(p)] = &Origin{From: src, Overrode: over}
				continue
			}
			t.merge(l, v, p, over)
			continue
		}
		prev := t.replaceUnder(p)
		t.Trace[Key(p)] = &Origin{
			From:         src,
			Overrode:     compactSources(slices.Concat(inherited, prev.overrode)),
			ReplacedList: v.Kind == yaml.SequenceNode && prev.list,
			Deleted:      v.Kind == yaml.ScalarNode && v.Tag == "!!null",
			list:         v.Kind == yaml.SequenceNode,
		}
	}
}

// replaced is what a new leaf at a path overrides.
type replaced struct {
	overrode []Source
	list     bool // the path held a list
}

// replaceUnder removes the entries at p and under it (a leaf replaces a
// whole map), returning their sources, in merge order.
func (t tracer) replaceUnder(p []string) replaced {
	var r replaced
	key := Key(p)
	if o, ok := t.Trace[key]; ok {
		r.overrode = append(append(r.overrode, o.Overrode...), o.From)
		r.list = o.list
		delete(t.Trace, key)
	}
	var under []string
	todo := []string{key}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for kid := range t.kids[k] {
			if _, ok := t.Trace[kid]; ok {
				under = append(under, kid)
			}
			todo = append(todo, kid)
		}
		delete(t.kids, k)
	}
	slices.Sort(under)
	for _, k := range under {
		r.overrode = append(r.overrode, t.Trace[k].From)
		delete(t.Trace, k)
	}
	return r
}

// compactSources drops repeated sources, keeping the first of each.
func compactSources(s []Source) []Source {
	var out []Source
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Effective is what a target's chart receives as .Values, and where each
// key comes from.
type Effective struct {
	// Values are the values as Helm coalesces them with the charts'
	// defaults. A secret values file's values are placeholders (the
	// renderer does not decrypt them for this).
	Values map[string]any
	// Trace is the origin of every key path the layers set.
	Trace Trace
	// Defaults traces the charts' own values.yaml layers alone: the keys
	// the chart and its subcharts declare.
	Defaults Trace
}

// Leaf is one value of Effective.Values that is not a map: a scalar, a
// list (replaced whole, never merged) or null.
type Leaf struct {
	Path  []string
	Value any
	// Origin is where it comes from; nil when no layer set it (a value
	// Helm computes, such as one a subchart's import-values copies).
	Origin *Origin
}

// Secret reports whether the leaf's value comes from a secret values file:
// it must never be shown.
func (l Leaf) Secret() bool { return l.Origin != nil && l.Origin.From.Secret }

// Leaves returns every leaf of Effective.Values under prefix (nil: all),
// in key order.
func (e *Effective) Leaves(prefix []string) []Leaf {
	var out []Leaf
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				walk(m[k], append(path[:len(path):len(path)], k))
			}
			return
		}
		out = append(out, Leaf{Path: path, Value: v, Origin: e.Origin(path)})
	}
	if v, ok := e.Get(prefix); ok {
		walk(v, slices.Clone(prefix))
	}
	return out
}

// Get returns the value at path (nil path: every value).
func (e *Effective) Get(path []string) (any, bool) {
	var v any = e.Values
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Origin returns where the value at path comes from: the layer that set
// it or a map above it; for a subchart's copy of the parent's globals
// (<subchart>.global...), the parent's global.
func (e *Effective) Origin(path []string) *Origin {
	for n := len(path); n > 0; n-- {
		if o, ok := e.Trace[Key(path[:n])]; ok {
			return o
		}
	}
	if i := slices.Index(path, "global"); i > 0 {
		return e.Origin(path[i:])
	}
	return nil
}
