package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// SourcePrefix starts the comment Helm writes before each rendered
// document to name its template.
const SourcePrefix = "# Source: "

// DocumentError is a document of a stream that is not valid YAML.
type DocumentError struct {
	// Template is the document's "# Source:" path, "" when it has none.
	Template string
	// Line is the 1-based line of the document in the stream.
	Line int
	Err  error
}

func (e *DocumentError) Error() string {
	return fmt.Sprintf("%s: not valid YAML: %v", cmp.Or(e.Template, "stream"), e.Err)
}

func (e *DocumentError) Unwrap() error { return e.Err }

// Read splits a YAML stream into objects, parsing each document once. A
// document may start with Helm's "# Source:" comment, which becomes its
// Template; documents that are empty or only comments are left out.
// Source is not set: only the caller knows where templates live.
func Read(stream []byte) ([]Object, error) {
	var objs []Object
	lines := bytes.SplitAfter(stream, []byte("\n"))
	start, line := -1, 0
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		doc := bytes.Join(lines[start:end], nil)
		o := Object{Line: start + 1}
		if rest, ok := bytes.CutPrefix(doc, []byte(SourcePrefix)); ok {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			o.Template = strings.TrimSpace(string(rest[:i]))
			doc = rest[min(i+1, len(rest)):]
			o.Line++
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			return nil
		}
		o.YAML = doc
		if err := yaml.Unmarshal(doc, &o.Content); err != nil {
			return &DocumentError{Template: o.Template, Line: o.Line, Err: err}
		}
		if o.Content == nil {
			return nil // only comments
		}
		o.APIVersion, _ = o.Content["apiVersion"].(string)
		o.Kind, _ = o.Content["kind"].(string)
		if md, ok := o.Content["metadata"].(map[string]any); ok {
			o.Name, _ = md["name"].(string)
			o.Namespace, _ = md["namespace"].(string)
		}
		objs = append(objs, o)
		return nil
	}
	for i, l := range lines {
		line = i
		if bytes.Equal(bytes.TrimRight(l, "\r\n"), []byte("---")) {
			if err := flush(i); err != nil {
				return nil, err
			}
			start = i + 1
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if err := flush(line + 1); err != nil {
		return nil, err
	}
	return objs, nil
}

// Append writes objects to a stream as Helm does: each document after a
// "---" separator and, for a rendered object, its "# Source:" comment.
func Append(stream []byte, objs ...Object) []byte {
	for _, o := range objs {
		stream = append(stream, "---\n"...)
		if o.Template != "" {
			stream = append(stream, SourcePrefix+o.Template+"\n"...)
		}
		stream = append(stream, o.YAML...)
	}
	return stream
}
