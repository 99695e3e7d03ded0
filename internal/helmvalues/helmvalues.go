// Package helmvalues reads a values file's bytes as each Helm does: Helm 3
// its first YAML document (sigs.k8s.io/yaml, as Helm's chartutil), Helm 4
// every document merged in order, later ones winning (Documents), and
// merges values files as helm's --values does (Merge). Rendering reads
// values with it, and the layout checks them with it, so that a values
// file that would fail to render is a layout error. It never decrypts:
// callers hand it plain content.
package helmvalues

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

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
