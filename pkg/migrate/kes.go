package migrate

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// KESAPIVersion is kubernetes-external-secrets' API version.
const KESAPIVersion = "kubernetes-client.io/v1"

// kesObject is a kubernetes-external-secrets ExternalSecret. Scalars are
// kept as the nodes they were read from, so that their quoting (and, in
// chart templates, the template actions they hold) carry over.
type kesObject struct {
	name, namespace     *yaml.Node
	labels, annotations *yaml.Node
	spec                kesSpec
}

type kesSpec struct {
	backendType                                                          string
	backendTypeNode                                                      *yaml.Node
	roleArn, region, keyVaultName, projectID, vaultMountPoint, vaultRole *yaml.Node
	kvVersion                                                            string
	controllerID                                                         *yaml.Node
	keyByName                                                            bool
	data                                                                 []kesItem
	dataFrom                                                             []kesItem
	template                                                             *yaml.Node
}

// kesItem is an entry of data, dataFrom or dataFromWithOptions.
type kesItem struct {
	line                                     int
	key, name, property, version, versionID  *yaml.Node
	versionStage, path, secretType, isBinary *yaml.Node
	recursive                                bool
}

// refusal is why an object cannot be converted, at a line of its file.
type refusal struct {
	line   int
	reason string
}

func (r *refusal) Error() string { return r.reason }

func refuse(n *yaml.Node, format string, args ...any) *refusal {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &refusal{line: line, reason: fmt.Sprintf(format, args...)}
}

// isKES reports whether doc (a document's mapping) is a KES ExternalSecret.
func isKES(doc *yaml.Node) bool {
	return scalar(get(doc, "apiVersion")) == KESAPIVersion && scalar(get(doc, "kind")) == "ExternalSecret"
}

// specFields and itemFields are the KES fields repotool translates; any
// other field is refused rather than dropped.
var (
	specFields = []string{
		"controllerId",
		"backendType",
		"roleArn",
		"region",
		"keyVaultName",
		"projectId",
		"kvVersion",
		"vaultMountPoint",
		"vaultRole",
		"keyByName",
		"data",
		"dataFrom",
		"dataFromWithOptions",
		"template",
	}
	itemFields = []string{"key", "name", "property", "version", "versionId", "versionStage", "path", "recursive", "secretType", "isBinary"}
)

// parseKES reads a KES ExternalSecret from its document's mapping.
func parseKES(doc *yaml.Node) (*kesObject, error) {
	o := &kesObject{}
	md := get(doc, "metadata")
	o.name, o.namespace = get(md, "name"), get(md, "namespace")
	o.labels, o.annotations = get(md, "labels"), get(md, "annotations")
	if scalar(o.name) == "" {
		return nil, refuse(doc, "the object has no metadata.name")
	}
	spec := get(doc, "spec")
	if sd := get(spec, "secretDescriptor"); sd != nil {
		spec = sd // the first KES API: the same fields under secretDescriptor
	}
	if spec == nil || spec.Kind != yaml.MappingNode {
		return nil, refuse(doc, "the object has no spec")
	}
	for i := 0; i+1 < len(spec.Content); i += 2 {
		if k := spec.Content[i]; !slices.Contains(specFields, k.Value) {
			return nil, refuse(k, "spec.%s has no External Secrets Operator equivalent repotool translates", k.Value)
		}
	}
	s := &o.spec
	s.backendTypeNode = get(spec, "backendType")
	s.backendType = scalar(s.backendTypeNode)
	if s.backendType == "" {
		return nil, refuse(spec, "spec.backendType is missing")
	}
	s.roleArn, s.region, s.keyVaultName = get(spec, "roleArn"), get(spec, "region"), get(spec, "keyVaultName")
	s.projectID, s.vaultMountPoint, s.vaultRole = get(spec, "projectId"), get(spec, "vaultMountPoint"), get(spec, "vaultRole")
	s.kvVersion = scalar(get(spec, "kvVersion"))
	s.controllerID = get(spec, "controllerId")
	s.keyByName = scalar(get(spec, "keyByName")) == "true"
	s.template = get(spec, "template")
	var err error
	if s.data, err = items(get(spec, "data"), "data"); err != nil {
		return nil, err
	}
	if df := get(spec, "dataFrom"); df != nil {
		if df.Kind != yaml.SequenceNode {
			return nil, refuse(df, "spec.dataFrom is not a list")
		}
		for _, k := range df.Content {
			if k.Kind != yaml.ScalarNode {
				return nil, refuse(k, "spec.dataFrom holds a %s, not a key", kindName(k))
			}
			s.dataFrom = append(s.dataFrom, kesItem{line: k.Line, key: k})
		}
	}
	withOptions, err := items(get(spec, "dataFromWithOptions"), "dataFromWithOptions")
	if err != nil {
		return nil, err
	}
	s.dataFrom = append(s.dataFrom, withOptions...)
	if len(s.data) == 0 && len(s.dataFrom) == 0 {
		return nil, refuse(spec, "the object has neither data nor dataFrom")
	}
	return o, nil
}

func items(seq *yaml.Node, field string) ([]kesItem, error) {
	if seq == nil {
		return nil, nil
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, refuse(seq, "spec.%s is not a list", field)
	}
	var out []kesItem
	for _, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			return nil, refuse(n, "spec.%s holds a %s, not an entry", field, kindName(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(itemFields, k.Value) {
				return nil, refuse(k, "spec.%s[].%s has no External Secrets Operator equivalent repotool translates", field, k.Value)
			}
		}
		it := kesItem{line: n.Line, key: get(n, "key"), name: get(n, "name"), property: get(n, "property"),
			version: get(n, "version"), versionID: get(n, "versionId"), versionStage: get(n, "versionStage"),
			path: get(n, "path"), secretType: get(n, "secretType"), isBinary: get(n, "isBinary"),
			recursive: scalar(get(n, "recursive")) == "true"}
		if it.key == nil && it.path == nil {
			return nil, refuse(n, "an entry of spec.%s has neither key nor path", field)
		}
		out = append(out, it)
	}
	return out, nil
}

// get returns the value of key in mapping m, nil when m is not a mapping
// or has no such key.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalar is a scalar node's value, "" for anything else.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// isTrue reports whether n is the boolean true.
func isTrue(n *yaml.Node) bool { return n != nil && strings.EqualFold(n.Value, "true") }
