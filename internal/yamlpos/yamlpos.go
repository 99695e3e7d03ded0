// Package yamlpos finds source positions in YAML documents: the line of a
// key path in a parsed node tree, and the line a go.yaml.in/yaml/v3 error
// refers to. It exists so that every diagnostic can say file:line.
//
// Inside: source positions in YAML: line of a key path, line of a yaml/v3
// error (correcting its 0-based parser lines), redaction of quoted content.
package yamlpos

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Root returns the content of a single-document node (or n itself).
func Root(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return n
}

// Lookup walks a mapping node tree along keys and returns the node holding
// the key's value and the line of the key itself. It returns (nil, 0) when the
// path does not exist. A DocumentNode is unwrapped.
func Lookup(n *yaml.Node, keys ...string) (*yaml.Node, int) {
	n = Root(n)
	line := 0
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil, 0
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line = n.Content[i].Line
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return nil, 0
		}
		n = next
	}
	return n, line
}

// Line returns the line of keys in n, or fallback when the path is absent.
func Line(n *yaml.Node, fallback int, keys ...string) int {
	if _, l := Lookup(n, keys...); l > 0 {
		return l
	}
	return fallback
}

var lineRE = regexp.MustCompile(`line (\d+):\s*`)

// ErrorLine extracts the line number a yaml/v3 error message refers to, and
// the message with the "yaml: line N:" prefix removed. For a *yaml.TypeError
// it reports the first of its errors. Line is 0 when the error names none.
func ErrorLine(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		rest := strings.TrimSpace(msg[:m[0]] + msg[m[1]:])
		// yaml/v3 reports parser errors (as opposed to scanner errors) with
		// a 0-based line: the start of the construct that is not closed.
		if strings.HasPrefix(rest, "did not find expected") {
			n++
		}
		return n, rest
	}
	return 0, msg
}

// Redact removes the parts of a yaml/v3 error message that quote document
// content (text between backticks, as in "cannot unmarshal !!str `secret`"),
// so that errors about secret files can be shown safely.
func Redact(msg string) string {
	var b strings.Builder
	in := false
	for _, r := range msg {
		switch {
		case r == '`':
			if !in {
				b.WriteString("`…`")
			}
			in = !in
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
