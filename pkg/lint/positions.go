package lint

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Every position lint reports is found here: lines of keys and values in
// the repository's files (through the run's file index, parsed once), of a
// rendered object's fields in its template, of a value in the values file
// it came from, and of a template error. Rules call these; none works out
// a position itself.

// lineOf returns the line of needle's first occurrence in a repository file
// (a template), or 0.
func (at *positions) lineOf(file, needle string) int {
	if file == "" || needle == "" || manifest.ParseSource(file).InArchive() {
		return 0
	}
	data, _ := at.files.Get(file).Data()
	if data == nil {
		return 0
	}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(needle)) {
			return i + 1
		}
	}
	return 0
}

// objectLine returns the line of needle in the template of a rendered
// object: within the template document that names the object when the
// template holds several documents, else anywhere in the file; 0 when not
// found (computed keys, archives).
func (at *positions) objectLine(o *manifest.Object, needle string) int {
	if o.File == "" || o.Member != "" {
		return 0
	}
	k := lineKey{file: o.File, name: o.Name, needle: needle}
	at.mu.Lock()
	defer at.mu.Unlock()
	if l, ok := at.lines[k]; ok {
		return l
	}
	if at.lines == nil {
		at.lines = map[lineKey]int{}
	}
	l := at.findObjectLine(o, needle)
	at.lines[k] = l
	return l
}

// positions finds where rendered objects and values are, in the run's
// file index; it memoizes objectLine: every copy of a chart's object (one
// per cluster) has the same line in the same template.
type positions struct {
	valuesDocs
	mu    sync.Mutex
	lines map[lineKey]int
}

// valuesDocs reads repository files through the run's file index, and
// values files as the run's Helm reads them.
type valuesDocs struct {
	files *layout.Files
	// helm4: values files are read as Helm 4 reads them, every document
	// (layout.File.ValuesNode), as the renderer reads them.
	helm4 bool
}

// node is the values of a values file: its documents the Helm reads.
func (d valuesDocs) node(p string) (*yaml.Node, error) { return d.files.Get(p).ValuesNode(d.helm4) }

// lineKey is what objectLine's answer depends on.
type lineKey struct{ file, name, needle string }

func (at *positions) findObjectLine(o *manifest.Object, needle string) int {
	data, _ := at.files.Get(o.File).Data()
	if data == nil {
		return 0
	}
	lines := bytes.Split(data, []byte("\n"))
	want := []byte(needle)
	find := func(start, end int) int {
		for i := start; i < end; i++ {
			if bytes.Contains(lines[i], want) {
				return i + 1
			}
		}
		return 0
	}
	if o.Name == "" {
		return find(0, len(lines))
	}
	// The "---"-separated documents holding "name: <name>": the first of
	// them with the needle (a template may render several objects of one
	// name, a Role and a ClusterRole say). No line is copied: this runs
	// for every position a rule reports in a template.
	sep, name, quoted := []byte("---"), []byte("name: "+o.Name), []byte("name: \""+o.Name+"\"")
	named := false
	docStart := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && !bytes.Equal(bytes.TrimSpace(lines[i]), sep) {
			continue
		}
		for j := docStart; j < i; j++ {
			if t := bytes.TrimSpace(lines[j]); bytes.Equal(t, name) || bytes.Equal(t, quoted) {
				named = true
				if line := find(docStart, i); line > 0 {
					return line
				}
				break
			}
		}
		docStart = i + 1
	}
	if named {
		return 0
	}
	return find(0, len(lines))
}

// objectNode returns the document node of a rendered object when its
// template is a plain file (a chart's crds/ file) that can be located.
func (at *positions) objectNode(o *manifest.Object) *yaml.Node {
	if o.File == "" || o.Member != "" || !isPlainManifest(o.File) {
		return nil
	}
	docs, _ := at.files.Get(o.File).Docs()
	for _, d := range docs {
		if str(d, "kind") == o.Kind && str(d, "metadata", "name") == o.Name {
			return d
		}
	}
	return nil
}

// lineAtPath returns the line of the deepest node of a JSON pointer that
// exists in a document (the document's line when none does).
func lineAtPath(n *yaml.Node, pointer string) int {
	line := n.Line
	for _, seg := range jsonptr.Split(pointer) {
		if seg == "" {
			continue
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					line, next = n.Content[i].Line, n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// templateLine finds the line of a field of an object rendered from a
// template: the line of its key in the template, or else of the nearest
// enclosing key (a field the object does not set, a default, has none).
func (at *positions) templateLine(o *manifest.Object, pointer string) int {
	for p := pointer; p != ""; p = p[:strings.LastIndex(p, "/")] {
		if k := lastKey(p); k != "" {
			if line := at.objectLine(o, k+":"); line > 0 {
				return line
			}
		}
	}
	return 0
}

// valueOrigin finds the plain values file and line an offending scalar came
// from: the last values file, in merge order, with an entry of the same key
// and value. Nothing is returned for values that are not scalars, or that
// may have come from a secret.
func valueOrigin(at *positions, res *render.Result, o *manifest.Object, pointer string) (string, int) {
	return valueOriginIn(at, res, contentOf(o), pointer)
}

// valueOriginIn is valueOrigin for an object's content already at hand.
func valueOriginIn(at *positions, res *render.Result, content map[string]any, pointer string) (string, int) {
	key := lastKey(pointer)
	segs := jsonptr.Split(pointer)
	if key == "" || segs[len(segs)-1] != key {
		return "", 0
	}
	cur, ok := jsonptr.Get(content, segs)
	if !ok {
		return "", 0
	}
	switch cur.(type) {
	case string, bool, float64, int64, int:
	default:
		return "", 0
	}
	want := fmt.Sprint(cur)
	if res.FromSecrets(want) {
		return "", 0
	}
	return findInValues(at, &res.Target, func(doc *yaml.Node) int { return findEntry(doc, key, want) })
}

// findEntry returns the line of a mapping entry key: value anywhere in n.
func findEntry(n *yaml.Node, key, value string) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == key && v.Kind == yaml.ScalarNode && v.Value == value {
				return v.Line
			}
		}
	}
	for _, c := range n.Content {
		if l := findEntry(c, key, value); l > 0 {
			return l
		}
	}
	return 0
}

// lastKey is the last non-index token of a JSON pointer, unescaped.
func lastKey(pointer string) string {
	segs := jsonptr.Split(pointer)
	for i := len(segs) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(segs[i]); err != nil && segs[i] != "" {
			return segs[i]
		}
	}
	return ""
}

// findInValues returns the last plain values file (in merge order: the one
// that wins) and the line find reports in the documents the Helm reads of
// it (layout.File.ValuesNode; 0: not there).
func findInValues(at *positions, t *layout.Target, find func(doc *yaml.Node) int) (string, int) {
	for i := len(t.Values) - 1; i >= 0; i-- {
		v := t.Values[i]
		if v.Secret {
			continue
		}
		if doc, err := at.node(v.Path); err == nil {
			if line := find(doc); line > 0 {
				return v.Path, line
			}
		}
	}
	return "", 0
}

// scalarMatching finds a scalar for which match is true.
func scalarMatching(match func(string) bool) func(*yaml.Node) int {
	return func(doc *yaml.Node) int { return findScalar(doc, match) }
}

func findScalar(n *yaml.Node, match func(string) bool) int {
	switch n.Kind {
	case yaml.ScalarNode:
		if match(n.Value) {
			return n.Line
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if l := findScalar(n.Content[i], match); l > 0 {
				return l
			}
		}
	default:
		for _, c := range n.Content {
			if l := findScalar(c, match); l > 0 {
				return l
			}
		}
	}
	return 0
}

// renderErrorLocation finds the file a render failure is about.
func renderErrorLocation(res *render.Result) (string, int) {
	var de *decrypt.Error
	var ve *render.ValuesError
	var dep *render.DependencyError
	var ce *render.ChartError
	var te *render.TemplateError
	var se *render.SchemaError
	switch err := res.Err; {
	case errors.As(err, &se):
		return se.File, se.Line
	case errors.As(err, &de):
		return de.File, 0
	case errors.As(err, &ve):
		return ve.File, 0
	case errors.As(err, &dep):
		return dep.Chart + "/Chart.yaml", 0
	case errors.As(err, &ce):
		return ce.Chart, 0
	case errors.As(err, &te) && te.File != "":
		return te.File, te.Line
	}
	return res.Target.ChartDir + "/Chart.yaml", 0
}

// objectPosition is the line of a rendered object in its template: its
// document's first line in a plain file, else the line of its kind in the
// template document that names it; 0 when it cannot be told.
func (at *positions) objectPosition(o *manifest.Object) int {
	if n := at.objectNode(o); n != nil {
		return n.Line
	}
	return at.objectLine(o, "kind: "+o.Kind)
}

// isPlainManifest reports whether a chart file is used without templating.
func isPlainManifest(p string) bool {
	return strings.Contains("/"+p, "/crds/")
}

func str(n *yaml.Node, keys ...string) string {
	v, _ := yamlpos.Lookup(n, keys...)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}
