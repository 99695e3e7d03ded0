package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
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
// Source is not set: only the caller knows where templates live. Each
// object's YAML shares the stream's memory: the stream must not change
// afterwards.
func Read(stream []byte) ([]Object, error) {
	return ReadParsed(stream, nil)
}

// ReadParsed is Read for a stream some of whose documents were parsed
// already: parsed, when not nil, is asked for each document (its bytes
// after the Source comment, and the line they start at) and returns its
// content when it knows it, as Read would parse it; the others are parsed.
func ReadParsed(stream []byte, parsed func(doc []byte, line int) (map[string]any, bool)) ([]Object, error) {
	var objs []Object
	start, startLine := -1, 0 // the current document's first byte and line
	doc := func(end int) error {
		if start < 0 {
			return nil
		}
		doc := stream[start:end:end]
		o := Object{Line: startLine}
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
		content, ok := map[string]any(nil), false
		if parsed != nil {
			content, ok = parsed(doc, o.Line)
		}
		if !ok {
			var err error
			if content, err = Decode(doc); err != nil {
				return &DocumentError{Template: o.Template, Line: o.Line, Err: err}
			}
		}
		if content == nil {
			return nil // only comments
		}
		o.Content = content
		o.APIVersion, _ = o.Content["apiVersion"].(string)
		o.Kind, _ = o.Content["kind"].(string)
		if md, ok := o.Content["metadata"].(map[string]any); ok {
			o.Name, _ = md["name"].(string)
			o.Namespace, _ = md["namespace"].(string)
		}
		objs = append(objs, o)
		return nil
	}
	line := 0
	for pos := 0; pos < len(stream); line++ {
		end := len(stream)
		if i := bytes.IndexByte(stream[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		if bytes.Equal(bytes.TrimRight(stream[pos:end], "\r\n"), []byte("---")) {
			if err := doc(pos); err != nil {
				return nil, err
			}
			start, startLine = end, line+2
		} else if start < 0 {
			start, startLine = pos, line+1
		}
		pos = end
	}
	if err := doc(len(stream)); err != nil {
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
