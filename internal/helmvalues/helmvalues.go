// Package helmvalues reads a values file's bytes as each Helm does: Helm 3
// its first YAML document (sigs.k8s.io/yaml, as Helm's chartutil), Helm 4
// every document merged in order, later ones winning (Documents), and
// merges values files as helm's --values does (Merge). Node is the same
// choice of documents on a file's parsed YAML nodes, with their lines: the
// one place that decides which documents of a values file count, for
// rendering, the layout's checks and lint's values rules alike. Rendering reads
// values with it, and the layout checks them with it, so that a values
// file that would fail to render is a layout error. It never decrypts:
// callers hand it plain content.
//
// Inside: how each Helm reads a values file's bytes (Helm 3: the first YAML
// document through sigs.k8s.io/yaml; Helm 4: every document, split as its
// loader splits them, merged in order) and helm's `--values` merge; `Node`
// makes the same choice on a file's parsed YAML nodes, keeping each key's line
// (`layout.File.ValuesNode`), for the values traces, the conflicts' locations
// and lint's values rules: the one place that decides which documents count,
// so that lint and render read the same ones under both Helms
// (`TestValuesDocumentsBothHelms`). `pkg/render` reads values with it and
// `pkg/layout` checks them with it, so a values file that would fail to render
// is a layout error (`TestValuesFailuresAreLayoutErrors`, `FuzzValuesLoad` in
// pkg/render). Light: sigs.k8s.io/yaml, go.yaml.in/yaml/v3 and apimachinery's
// YAML splitter only.
package helmvalues

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	yamlv3 "go.yaml.in/yaml/v3"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Read reads data as the given Helm reads a values file: Helm 4 merges
// every document (Documents), Helm 3 reads the first.
func Read(data []byte, helm4 bool) (map[string]any, error) {
	if helm4 {
		return Documents(data)
	}
	out := map[string]any{}
	err := yaml.Unmarshal(data, &out)
	return out, err
}

// Documents reads a values file as Helm 4 does: every YAML document
// of it merged into the ones before, maps key by key.
func Documents(data []byte) (map[string]any, error) {
	out := map[string]any{}
	err := Each(data, func(doc []byte, line int) error {
		cur := map[string]any{}
		if err := yaml.Unmarshal(doc, &cur); err != nil {
			if line > 1 {
				// The parser counts lines from the document's start.
				return fmt.Errorf("cannot unmarshal yaml document (the document from line %d; its lines count from there): %w", line, err)
			}
			return fmt.Errorf("cannot unmarshal yaml document: %w", err)
		}
		out = Merge(out, cur)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Count is how many YAML documents Helm 4 reads in data.
func Count(data []byte) (int, error) {
	n := 0
	err := Each(data, func([]byte, int) error { n++; return nil })
	return n, err
}

// Each calls f with each YAML document of data, as Helm 4's
// values loader splits them (a final line without its newline included),
// and the line of data the document starts at.
func Each(data []byte, f func(doc []byte, line int) error) error {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data[:len(data):len(data)], '\n')
	}
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	pos, line := 0, 1 // where the last document ended, and its line after
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("error reading yaml document: %w", err)
		}
		// A document is a run of data's lines: find it after the last.
		start := line
		if i := bytes.Index(data[pos:], doc); i >= 0 {
			start += bytes.Count(data[pos:pos+i], []byte("\n"))
			pos += i + len(doc)
			line = start + bytes.Count(doc, []byte("\n"))
		}
		if err := f(doc, start); err != nil {
			return err
		}
	}
}

// Merge is helm's values merge (pkg/cli/values): b over a, maps merged
// recursively, everything else replaced.
func Merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = Merge(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// Counted are the documents of a values file that a Helm reads, of docs,
// those parsed, and err, the parse's error (at a later document when some
// parsed): the first under Helm 3, every one under Helm 4. err is
// returned when it falls on a document the Helm reads: Helm 3 never reads
// past the first. The one place that decides which documents count.
func Counted(docs []*yamlv3.Node, err error, helm4 bool) ([]*yamlv3.Node, error) {
	if err != nil && (helm4 || len(docs) == 0) {
		return nil, err
	}
	if !helm4 && len(docs) > 1 {
		docs = docs[:1]
	}
	return docs, nil
}

// Node is the values a Helm reads from a file's YAML documents, as one
// node with each key's own line: the first document for Helm 3, every
// document merged into the ones before for Helm 4 (mappings key by key, a
// document that is not a mapping adding nothing, as Documents merges
// them). No document is an empty mapping.
func Node(docs []*yamlv3.Node, helm4 bool) *yamlv3.Node {
	var out *yamlv3.Node
	docs, _ = Counted(docs, nil, helm4)
	for _, d := range docs {
		out = mergeNodes(out, d)
	}
	if out == nil {
		return &yamlv3.Node{Kind: yamlv3.MappingNode, Tag: "!!map"}
	}
	return out
}

// mergeNodes is Merge on YAML nodes: b over a, mappings merged key by key,
// anything else replaced; a document that is not a mapping adds nothing
// (Helm reads it as an empty map).
func mergeNodes(a, b *yamlv3.Node) *yamlv3.Node {
	switch {
	case a == nil:
		return b
	case b.Kind != yamlv3.MappingNode:
		return a
	case a.Kind != yamlv3.MappingNode:
		return b
	}
	out := *a
	out.Content = append([]*yamlv3.Node(nil), a.Content...)
	for i := 0; i+1 < len(b.Content); i += 2 {
		k, v := b.Content[i], b.Content[i+1]
		j := keyIndex(out.Content, k.Value)
		switch {
		case j < 0:
			out.Content = append(out.Content, k, v)
		case out.Content[j+1].Kind == yamlv3.MappingNode && v.Kind == yamlv3.MappingNode:
			out.Content[j+1] = mergeNodes(out.Content[j+1], v)
		default:
			out.Content[j], out.Content[j+1] = k, v
		}
	}
	return &out
}

// keyIndex is the index of key's node among a mapping's content, or -1.
func keyIndex(content []*yamlv3.Node, key string) int {
	for i := 0; i+1 < len(content); i += 2 {
		if content[i].Value == key {
			return i
		}
	}
	return -1
}
