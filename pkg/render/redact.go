package render

import (
	"bytes"
	"encoding/base64"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/manifest"
)

// RedactedValue replaces secret values in Redacted output. Under a
// Secret's data it appears base64-encoded, so the object stays valid.
const RedactedValue = "[redacted]"

// Redacted returns the manifest with secrets masked, for output that may be
// stored or shown (files, diffs, golden tests). It is safe by construction,
// not by searching for secrets in the output: when the target has
// decrypted secret values, it is made from a second rendering in which
// every secret value is a typed placeholder (PlaceholderValue, 0, false,
// as with --no-decrypt), so decrypted bytes never enter it, in any form a
// template may give them. Then every value under a Secret's data and
// stringData is replaced by RedactedValue. The result is valid YAML with
// the same objects, names and structure. It fails when the chart does not
// render with placeholders for its secret values, or when the context the
// target was rendered with ends before that second rendering is done.
func (res *Result) Redacted() ([]byte, error) {
	objs, err := res.RedactedObjects()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, o := range objs {
		out.WriteString("---\n")
		if o.Template != "" {
			out.WriteString(manifest.SourcePrefix + o.Template + "\n")
		}
		out.Write(o.YAML)
	}
	return out.Bytes(), nil
}

// RedactedObjects are the objects of Redacted's stream, as manifest.Read
// would read them from it, without printing and parsing it again: those of
// the rendering with placeholders, each Secret's YAML and content redacted.
// Their lines are their templates', not the stream's.
func (res *Result) RedactedObjects() ([]manifest.Object, error) {
	objs := res.Objects
	if res.safe != nil {
		var err error
		if objs, err = res.safe(); err != nil {
			return nil, err
		}
	}
	out := slices.Clone(objs)
	for i := range out {
		o := &out[i]
		if !o.IsSecret() {
			continue
		}
		doc, err := redactSecret(o.YAML)
		if err != nil {
			return nil, err
		}
		if o.Content, err = manifest.Decode(doc); err != nil {
			return nil, err
		}
		o.YAML = doc
	}
	return out, nil
}

// redactSecret masks every value under a Secret's data and stringData.
func redactSecret(doc []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(doc, &n); err != nil {
		return nil, err
	}
	root := yamlpos.Root(&n)
	if root.Kind != yaml.MappingNode {
		return doc, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i].Value, root.Content[i+1]
		if (key != "data" && key != "stringData") || val.Kind != yaml.MappingNode {
			continue
		}
		masked := RedactedValue
		if key == "data" {
			masked = base64.StdEncoding.EncodeToString([]byte(RedactedValue))
		}
		for j := 1; j < len(val.Content); j += 2 {
			val.Content[j] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: masked, Style: yaml.DoubleQuotedStyle}
		}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// WithObjects returns a copy of res whose objects are objs and whose
// redacted objects (RedactedObjects) are safe: a rendering as a later
// stage changed it (diff --as-admitted compares objects as the cluster's
// admission policies change them). Its Manifest is not kept.
func (res *Result) WithObjects(objs, safe []manifest.Object) *Result {
	out := *res
	out.Manifest, out.Objects = nil, objs
	out.safe = func() ([]manifest.Object, error) { return safe, nil }
	return &out
}

// Safe returns a copy of res whose objects are its redacted objects, for
// a stage that evaluates the objects and shows what it finds: nothing it
// shows can then hold a secret value.
func (res *Result) Safe() (*Result, error) {
	objs, err := res.RedactedObjects()
	if err != nil {
		return nil, err
	}
	return res.WithObjects(objs, objs), nil
}
