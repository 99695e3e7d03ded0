package migrate

import (
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// converted is a KES object in ESO terms.
type converted struct {
	object *yaml.Node // the ExternalSecret's mapping
	store  store
	todo   []string
}

// convertOptions configure convert.
type convertOptions struct {
	settings  Settings
	storeKind string // SecretStore or ClusterSecretStore
	suffix    string // --target-suffix
	esoMajor  int    // the ESO major version written for
	helm      bool   // the object is in a chart template
	tokens    *tokens
}

// convert translates a KES object into an ESO ExternalSecret and the store
// it reads from.
func convert(o *kesObject, opts convertOptions) (*converted, error) {
	st, err := storeFor(o, opts)
	if err != nil {
		return nil, err
	}
	c := &converted{store: st}
	spec := mapping()
	ref := mapping()
	set(ref, "kind", str(st.kind))
	set(ref, "name", str(st.name))
	set(spec, "secretStoreRef", ref)
	target := mapping()
	name := clone(o.name)
	name.Value += opts.suffix
	set(target, "name", name)
	if o.spec.template != nil {
		tpl, err := convertTemplate(o.spec.template, opts.helm)
		if err != nil {
			return nil, err
		}
		set(target, "template", tpl)
	}
	set(spec, "target", target)
	data, err := convertData(o)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		set(spec, "data", seq(data...))
	}
	from, err := convertDataFrom(o)
	if err != nil {
		return nil, err
	}
	if len(from) > 0 {
		set(spec, "dataFrom", seq(from...))
	}
	if o.spec.backendType == "ibmcloudSecretsManager" && o.spec.keyByName {
		c.todo = append(c.todo, "keyByName: KES found IBM Cloud secrets by name in any secret group; "+
			"External Secrets Operator names the group: the keys say default/<type>/<name>, change default where the secret is in another group")
	}
	if o.spec.backendType == "alicloudSecretsManager" && o.spec.roleArn != nil {
		c.todo = append(c.todo, "roleArn "+o.spec.roleArn.Value+": External Secrets Operator assumes an Alibaba Cloud RAM role "+
			"only with RRSA (spec.provider.alibaba.auth.rrsa); set it up in the store by hand")
	}
	obj := mapping()
	set(obj, "apiVersion", str("external-secrets.io/v1"))
	set(obj, "kind", str("ExternalSecret"))
	set(obj, "metadata", convertMetadata(o, opts.suffix))
	set(obj, "spec", spec)
	c.object = obj
	return c, nil
}

// convertMetadata is the ExternalSecret's metadata: the KES object's name,
// namespace, labels and annotations, and the suffix's annotation.
func convertMetadata(o *kesObject, suffix string) *yaml.Node {
	md := mapping()
	set(md, "name", clone(o.name))
	if o.namespace != nil {
		set(md, "namespace", clone(o.namespace))
	}
	if o.labels != nil {
		set(md, "labels", clone(o.labels))
	}
	annotations := clone(o.annotations)
	if suffix != "" {
		if annotations == nil {
			annotations = mapping()
		}
		set(annotations, SuffixAnnotation, str(suffix))
	}
	if annotations != nil {
		set(md, "annotations", annotations)
	}
	return md
}

// convertData is spec.data: one entry per KES data item with a key.
func convertData(o *kesObject) ([]*yaml.Node, error) {
	var data []*yaml.Node
	for _, it := range o.spec.data {
		if it.path != nil {
			continue // a path is read with dataFrom.find
		}
		if it.name == nil {
			return nil, refuse(&yaml.Node{Line: it.line}, "an entry of spec.data has a key and no name")
		}
		if !secretKeyRE.MatchString(it.name.Value) && !strings.Contains(it.name.Value, "repotoolTplAction") {
			return nil, refuse(it.name, "name %q is not a valid key of a Secret (letters, digits, '-', '_' and '.'): "+
				"KES could not have written it either", it.name.Value)
		}
		rr, err := remoteRef(o, it)
		if err != nil {
			return nil, err
		}
		d := mapping()
		set(d, "secretKey", text(it.name))
		set(d, "remoteRef", rr)
		data = append(data, d)
	}
	return data, nil
}

// convertDataFrom is spec.dataFrom: KES data items read by path, then its
// dataFrom.
func convertDataFrom(o *kesObject) ([]*yaml.Node, error) {
	var from []*yaml.Node
	for _, it := range o.spec.data {
		if it.path == nil {
			continue
		}
		if o.spec.backendType != "systemManager" {
			return nil, refuse(it.path, "path reads every parameter under it, which KES supports for systemManager only")
		}
		from = append(from, findByPath(it))
	}
	for _, it := range o.spec.dataFrom {
		rr, err := remoteRef(o, it)
		if err != nil {
			return nil, err
		}
		e := mapping()
		set(e, "extract", rr)
		from = append(from, e)
	}
	return from, nil
}

// secretKeyRE is what a Secret's data key may be.
var secretKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// SuffixAnnotation marks an ESO ExternalSecret written side by side with
// its KES original (--target-suffix): its value is the suffix, which
// migrate --switch removes with the KES object.
const SuffixAnnotation = "repotool.dev/kes-target-suffix"

// remoteRef translates a data or dataFrom entry's reference.
func remoteRef(o *kesObject, it kesItem) (*yaml.Node, error) {
	rr := mapping()
	key := clone(it.key)
	if o.spec.backendType == "ibmcloudSecretsManager" {
		// ESO names an IBM secret "<type>/<id>", or "<type>/<name>" in
		// the default secret group when the key is not an ID.
		if it.secretType == nil {
			return nil, refuse(it.key, "an IBM Cloud Secrets Manager entry without secretType: External Secrets Operator needs the secret type in the key")
		}
		key.Value = it.secretType.Value + "/" + key.Value
		if o.spec.keyByName {
			key.Value = "default/" + key.Value
		}
		key.Style = 0
	}
	set(rr, "key", text(key))
	if prop := ibmProperty(o, it.property); prop != nil {
		set(rr, "property", text(prop))
	}
	switch {
	case it.version != nil && it.versionStage != nil, it.version != nil && it.versionID != nil, it.versionStage != nil && it.versionID != nil:
		return nil, refuse(it.key, "an entry sets more than one of version, versionStage and versionId")
	case it.version != nil:
		set(rr, "version", text(it.version))
	case it.versionStage != nil:
		set(rr, "version", text(it.versionStage))
	case it.versionID != nil:
		v := clone(it.versionID)
		v.Value = "uuid/" + v.Value // ESO's form for an AWS version ID
		v.Style = 0
		set(rr, "version", v)
	}
	if isTrue(it.isBinary) && o.spec.backendType != "secretsManager" {
		// KES passes a binary value on as the base64 the backend holds;
		// ESO decodes it, and the Secret holds the same bytes. (An AWS
		// Secrets Manager binary secret needs nothing: ESO reads
		// SecretBinary as bytes.)
		set(rr, "decodingStrategy", str("Base64"))
	}
	return rr, nil
}

// ibmProperty is an entry's property: KES read IBM Cloud secrets as the
// API's JSON (the value under "payload"), External Secrets Operator reads
// the secret's own fields.
func ibmProperty(o *kesObject, prop *yaml.Node) *yaml.Node {
	if prop == nil {
		return nil
	}
	p := clone(prop)
	if o.spec.backendType == "ibmcloudSecretsManager" {
		if p.Value == "payload" {
			return nil
		}
		p.Value = strings.TrimPrefix(p.Value, "payload.")
	}
	return p
}

// findByPath reads the parameters under an SSM path as KES does: named
// by the last part of their name, only the direct children unless
// recursive.
func findByPath(it kesItem) *yaml.Node {
	p := it.path.Value
	find := mapping()
	set(find, "path", clone(it.path))
	name := mapping()
	re := ".*"
	if !it.recursive {
		re = "^" + regexp.QuoteMeta(strings.TrimSuffix(p, "/")) + "/[^/]+$"
	}
	set(name, "regexp", str(re))
	set(find, "name", name)
	rewrite := mapping()
	rx := mapping()
	set(rx, "source", str("^.*/([^/]+)$"))
	set(rx, "target", str("$1"))
	set(rewrite, "regexp", rx)
	e := mapping()
	set(e, "find", find)
	set(e, "rewrite", seq(rewrite))
	return e
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func set(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

// text is a copy of a scalar that ESO takes as a string: KES took
// `version: 1` as "1", ESO's CRD refuses the number.
func text(n *yaml.Node) *yaml.Node {
	c := clone(n)
	if c != nil && c.Kind == yaml.ScalarNode {
		c.Tag = "!!str"
	}
	return c
}

// clone deep-copies a node without its comments and positions.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value, Anchor: n.Anchor}
	if n.Kind == yaml.AliasNode {
		return clone(n.Alias)
	}
	for _, ch := range n.Content {
		c.Content = append(c.Content, clone(ch))
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
