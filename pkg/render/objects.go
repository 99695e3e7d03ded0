package render

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// Object is one document of a rendered stream.
type Object struct {
	APIVersion string
	Kind       string
	Name       string
	// Namespace is metadata.namespace as rendered; "" when the template
	// leaves it to the destination (as Argo CD does).
	Namespace string
	// Template is Helm's "# Source:" path, e.g.
	// "namespace-a/charts/common/templates/_deployment.tpl" style paths as
	// helm template prints them.
	Template string
	// File is the repository path of the template (or of the .tgz archive
	// holding it); Member is the path inside that archive, "" otherwise.
	File   string
	Member string
	// Line is the 1-based line of the document's first line in the stream.
	Line int
	// YAML is the document as rendered, without the separator and the
	// Source comment.
	YAML []byte
	// Content is the parsed document.
	Content map[string]any
}

// ID is "apiVersion/kind namespace/name" (namespace omitted when empty).
func (o *Object) ID() string {
	if o.Namespace == "" {
		return fmt.Sprintf("%s/%s %s", o.APIVersion, o.Kind, o.Name)
	}
	return fmt.Sprintf("%s/%s %s/%s", o.APIVersion, o.Kind, o.Namespace, o.Name)
}

const sourcePrefix = "# Source: "

// splitObjects splits a rendered stream into objects. origins maps chart
// full paths to their repository location (see chartEntry).
func splitObjects(stream []byte, origins map[string]string) ([]Object, error) {
	var objs []Object
	lines := bytes.SplitAfter(stream, []byte("\n"))
	start, line := -1, 0
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		doc := bytes.Join(lines[start:end], nil)
		startLine := start + 1
		o := Object{Line: startLine}
		if rest, ok := bytes.CutPrefix(doc, []byte(sourcePrefix)); ok {
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
			return fmt.Errorf("%s: rendered output is not valid YAML: %w", cmp.Or(o.Template, "stream"), err)
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
		o.File, o.Member = templateFile(o.Template, origins)
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

// templateFile maps Helm's template path to the file in the repository: the
// chart with the longest full path that prefixes it owns it.
func templateFile(tpl string, origins map[string]string) (file, member string) {
	best := ""
	for full := range origins {
		if strings.HasPrefix(tpl, full+"/") && len(full) > len(best) {
			best = full
		}
	}
	if best == "" {
		return "", ""
	}
	origin := origins[best]
	if strings.HasSuffix(origin, ".tgz") {
		// The archive's root chart is the shortest chart path it holds; the
		// archive stores files as "<root chart name>/<path below it>".
		root := best
		for full, o := range origins {
			if o == origin && len(full) < len(root) {
				root = full
			}
		}
		return origin, path.Join(path.Base(root), strings.TrimPrefix(tpl, root+"/"))
	}
	return path.Join(origin, strings.TrimPrefix(tpl, best+"/")), ""
}
