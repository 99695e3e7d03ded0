package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// file is a YAML file as lines, edited document by document.
type file struct {
	path  string
	helm  bool // a chart template: template actions are values
	lines []string
	// edits replace line ranges, applied by text.
	edits []edit
}

type edit struct {
	start, end int // lines [start, end)
	text       string
}

func splitLines(s string) []string { return strings.SplitAfter(s, "\n") }

// text is the file with its edits applied.
func (f *file) text() string {
	var b strings.Builder
	at := 0
	for _, e := range f.edits {
		b.WriteString(strings.Join(f.lines[at:e.start], ""))
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(strings.Join(f.lines[at:], ""))
	return b.String()
}

// docs are the file's documents as line ranges, separators excluded.
func (f *file) docs() [][2]int {
	var out [][2]int
	start := 0
	for i, l := range f.lines {
		if isSeparator(l) {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(f.lines)})
}

func isSeparator(l string) bool {
	l = strings.TrimRight(l, "\r\n")
	return l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t")
}

// parsed is a document read for conversion.
type parsed struct {
	node   *yaml.Node // the document's mapping
	tokens *tokens    // template actions replaced, in a chart template
}

// helmAction matches a template action.
var helmAction = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// controlAction matches actions that shape the text instead of giving a
// value: control structures, comments, and blocks of YAML (toYaml,
// indent, nindent).
var controlAction = regexp.MustCompile(`^\{\{-?\s*(if|else|end|range|with|define|block|template|break|continue|/\*)\b|\b(toYaml|indent|nindent)\b`)

// tokens maps the stand-ins for template actions back to them.
type tokens struct{ actions []string }

func tokenFor(i int) string { return fmt.Sprintf("repotoolTplAction%04dZ", i) }

func (t *tokens) restore(s string) string {
	if t == nil {
		return s
	}
	for i := len(t.actions) - 1; i >= 0; i-- {
		s = strings.ReplaceAll(s, tokenFor(i), t.actions[i])
	}
	return s
}

// parse reads the document in lines [start, end). A chart template's
// actions must be values: they are replaced by tokens (restored when the
// document is written back), and an action that shapes the text refuses
// the document.
func (f *file) parse(start, end int) (*parsed, error) {
	text := strings.Join(f.lines[start:end], "")
	pd := &parsed{}
	if f.helm {
		pd.tokens = &tokens{}
		var bad string
		text = helmAction.ReplaceAllStringFunc(text, func(a string) string {
			if controlAction.MatchString(a) && bad == "" {
				bad = a
			}
			pd.tokens.actions = append(pd.tokens.actions, a)
			return tokenFor(len(pd.tokens.actions) - 1)
		})
		if bad != "" {
			return nil, &refusal{
				line:   lineOf(f.lines[start:end], bad) + start,
				reason: "the object is built with template logic (" + bad + "), not written literally: convert it by hand",
			}
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		if pd.tokens != nil {
			return nil, &refusal{
				line:   start + 1,
				reason: "with its template actions taken as values, the document is not YAML (" + err.Error() + "): convert it by hand",
			}
		}
		return nil, &refusal{line: start + 1, reason: "not valid YAML: " + err.Error()}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	pd.node = root.Content[0]
	if pd.tokens != nil {
		if k := tokenKey(pd.node); k != nil {
			return nil, &refusal{line: start + k.Line, reason: "a key is made by a template action: convert it by hand"}
		}
	}
	return pd, nil
}

// tokenKey finds a mapping key holding a token.
func tokenKey(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.Contains(n.Content[i].Value, "repotoolTplAction") {
				return n.Content[i]
			}
		}
	}
	for _, c := range n.Content {
		if k := tokenKey(c); k != nil {
			return k
		}
	}
	return nil
}

func lineOf(lines []string, s string) int {
	first := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first = s[:i]
	}
	for i, l := range lines {
		if strings.Contains(l, first) {
			return i + 1
		}
	}
	return 1
}

// encode writes a document's mapping as YAML, its tokens restored.
func encode(n *yaml.Node, t *tokens) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(n) // nodes built here always encode
	_ = enc.Close()
	return t.restore(b.String())
}

// doc is one document of a file: its lines [start, end), and, when it was
// read, its parse or why it could not be parsed.
type doc struct {
	start, end int
	pd         *parsed
	err        error
}

func (d doc) text(f *file) string { return strings.Join(f.lines[d.start:d.end], "") }

// parseDocs splits the file into documents and parses, once, those whose
// text read accepts.
func (f *file) parseDocs(read func(text string) bool) []doc {
	var out []doc
	for _, r := range f.docs() {
		d := doc{start: r[0], end: r[1]}
		if read(d.text(f)) {
			d.pd, d.err = f.parse(d.start, d.end)
		}
		out = append(out, d)
	}
	return out
}

// id is the object's namespace and name, template actions restored.
func (pd *parsed) id() string {
	md := get(pd.node, "metadata")
	return pd.tokens.restore(scalar(get(md, "namespace")) + "/" + scalar(get(md, "name")))
}

// convertDocs converts the file's KES documents, and returns the stores
// they use.
func (f *file) convertDocs(res *Result, opts Options) []store {
	major, _ := esoMajor(opts.ESOVersion) // checked by Plan
	var used []store
	docs := f.parseDocs(func(text string) bool {
		return strings.Contains(text, "kubernetes-client.io") || opts.Suffix != "" && strings.Contains(text, SuffixAnnotation)
	})
	// Side by side, a KES object whose translation is already next to it
	// (an earlier --target-suffix run) is done.
	translated := map[string]bool{}
	for _, d := range docs {
		if d.pd != nil && opts.Suffix != "" && get(get(get(d.pd.node, "metadata"), "annotations"), SuffixAnnotation) != nil {
			translated[d.pd.id()] = true
		}
	}
	for _, d := range docs {
		if !strings.Contains(d.text(f), "kubernetes-client.io") {
			continue
		}
		pd, err := d.pd, d.err
		var r *refusal
		if errors.As(err, &r) {
			res.Refused = append(res.Refused, Item{File: f.path, Line: r.line, Detail: r.reason})
			continue
		}
		if pd == nil || !isKES(pd.node) || translated[pd.id()] {
			continue
		}
		name := pd.tokens.restore(scalar(get(get(pd.node, "metadata"), "name")))
		o, err := parseKES(pd.node)
		var c *converted
		if err == nil {
			c, err = convert(
				o,
				convertOptions{settings: opts.Settings, storeKind: opts.StoreKind, suffix: opts.Suffix, esoMajor: major, helm: f.helm, tokens: pd.tokens},
			)
		}
		if errors.As(err, &r) {
			res.Refused = append(res.Refused, Item{File: f.path, Line: d.start + max(r.line, 1), Name: name, Detail: pd.tokens.restore(r.reason)})
			continue
		}
		if err != nil {
			res.Refused = append(res.Refused, Item{File: f.path, Line: d.start + 1, Name: name, Detail: err.Error()})
			continue
		}
		c.store.tokens = pd.tokens
		used = append(used, c.store)
		res.Converted = append(res.Converted, Item{File: f.path, Line: d.start + pd.node.Line, Name: name, Detail: c.store.kind + " " + c.store.name})
		for _, t := range c.todo {
			res.Todo = append(res.Todo, Item{File: f.path, Line: d.start + pd.node.Line, Name: name, Detail: pd.tokens.restore(t)})
		}
		text := encode(c.object, pd.tokens)
		if opts.Suffix != "" {
			// Side by side: the KES object stays, the translation follows.
			orig := strings.Join(f.lines[d.start:d.end], "")
			if !strings.HasSuffix(orig, "\n") {
				orig += "\n"
			}
			text = orig + "---\n" + text
		} else {
			text = keepLeadingComments(f.lines[d.start:d.end]) + text + keepTrailingBlank(f.lines[d.start:d.end])
		}
		f.edits = append(f.edits, edit{start: d.start, end: d.end, text: text})
	}
	return used
}

// keepLeadingComments are the comment and blank lines a document starts
// with: they describe the object, and stay above its translation.
func keepLeadingComments(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// keepTrailingBlank are the blank lines a document ends with, kept
// before the next separator.
func keepTrailingBlank(lines []string) string {
	n := 0
	for i := len(lines) - 1; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
		n++
	}
	if n == len(lines) {
		return ""
	}
	return strings.Join(lines[len(lines)-n:], "")
}

// switchDocs finishes side-by-side migrations in the file: ESO objects
// marked with SuffixAnnotation lose the mark and the suffix, and the KES
// objects of the same name and namespace are removed.
func (f *file) switchDocs(res *Result) {
	docs := f.parseDocs(func(string) bool { return true })
	switched := map[string]bool{}
	for _, d := range docs {
		var r *refusal
		if errors.As(d.err, &r) {
			if strings.Contains(d.text(f), SuffixAnnotation) {
				res.Refused = append(res.Refused, Item{File: f.path, Line: r.line, Detail: r.reason})
			}
			continue
		}
		pd := d.pd
		if pd == nil {
			continue
		}
		md := get(pd.node, "metadata")
		ann := get(md, "annotations")
		suffix := get(ann, SuffixAnnotation)
		if scalar(get(pd.node, "apiVersion")) != "external-secrets.io/v1" || suffix == nil {
			continue
		}
		target := get(get(pd.node, "spec"), "target")
		if tn := get(target, "name"); tn != nil {
			tn.Value = strings.TrimSuffix(tn.Value, suffix.Value)
		}
		removeKey(ann, SuffixAnnotation)
		if len(ann.Content) == 0 {
			removeKey(md, "annotations")
		}
		switched[pd.id()] = true
		res.Switched = append(
			res.Switched,
			Item{
				File:   f.path,
				Line:   d.start + pd.node.Line,
				Name:   pd.tokens.restore(scalar(get(md, "name"))),
				Detail: "target " + pd.tokens.restore(scalar(get(target, "name"))),
			},
		)
		lines := f.lines[d.start:d.end]
		f.edits = append(f.edits, edit{start: d.start, end: d.end, text: keepLeadingComments(lines) + encode(pd.node, pd.tokens) + keepTrailingBlank(lines)})
	}
	for _, d := range docs {
		if d.pd == nil || !isKES(d.pd.node) || !switched[d.pd.id()] {
			continue
		}
		// Remove the document and the separator after it (before it, for
		// the last one). The comments above it stay, above what follows:
		// its translation, side by side.
		start, end := d.start, d.end
		switch {
		case end < len(f.lines):
			end++
		case start > 0:
			start--
		}
		f.edits = append(f.edits, edit{start: start, end: end, text: keepLeadingComments(f.lines[d.start:d.end])})
	}
	slices.SortFunc(f.edits, func(a, b edit) int { return a.start - b.start })
}

func removeKey(m *yaml.Node, key string) {
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}
