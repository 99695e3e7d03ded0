package manifest

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// CRD is a CustomResourceDefinition: what repotool needs to know of the
// API it adds.
type CRD struct {
	Name, Group, Kind, Plural, Singular string
	// Scope is "Namespaced" or "Cluster".
	Scope      string
	ShortNames []string
	Versions   []CRDVersion
	// Source is the file that defines the CRD (the template of a rendered
	// one); Line is the line of its names: field there, 0 when unknown.
	Source Source
	Line   int
	// PluralLine, SingularLine and ShortNameLines are the lines of the
	// individual names, 0 (or absent) when unknown.
	PluralLine, SingularLine int
	ShortNameLines           map[string]int
}

// CRDVersion is one version a CRD defines.
type CRDVersion struct {
	Name    string
	Served  bool
	Storage bool
	// Schema is the version's openAPIV3Schema, nil when it has none.
	Schema map[string]any
}

// Served returns the names of the versions the CRD serves.
func (c *CRD) Served() []string {
	var out []string
	for _, v := range c.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	return out
}

// IsCRD reports whether an apiVersion and kind are a
// CustomResourceDefinition's.
func IsCRD(apiVersion, kind string) bool {
	return kind == "CustomResourceDefinition" && strings.HasPrefix(apiVersion, "apiextensions.k8s.io/")
}

// CRDFromNode reads a CRD from its document node (apiextensions.k8s.io v1
// or v1beta1), with the lines of its names as the node has them.
func CRDFromNode(n *yaml.Node, src Source) *CRD {
	str := func(keys ...string) string {
		v, _ := yamlpos.Lookup(n, keys...)
		if v == nil || v.Kind != yaml.ScalarNode {
			return ""
		}
		return v.Value
	}
	c := &CRD{
		Name: str("metadata", "name"), Group: str("spec", "group"), Scope: str("spec", "scope"),
		Kind: str("spec", "names", "kind"), Plural: str("spec", "names", "plural"), Singular: str("spec", "names", "singular"),
		Source: src, ShortNameLines: map[string]int{},
	}
	_, c.Line = yamlpos.Lookup(n, "spec", "names")
	_, c.PluralLine = yamlpos.Lookup(n, "spec", "names", "plural")
	_, c.SingularLine = yamlpos.Lookup(n, "spec", "names", "singular")
	if sn, _ := yamlpos.Lookup(n, "spec", "names", "shortNames"); sn != nil && sn.Kind == yaml.SequenceNode {
		for _, s := range sn.Content {
			c.ShortNames = append(c.ShortNames, s.Value)
			c.ShortNameLines[s.Value] = s.Line
		}
	}
	if vs, _ := yamlpos.Lookup(n, "spec", "versions"); vs != nil && vs.Kind == yaml.SequenceNode {
		for _, v := range vs.Content {
			field := func(k string) string {
				x, _ := yamlpos.Lookup(v, k)
				if x == nil {
					return ""
				}
				return x.Value
			}
			cv := CRDVersion{Name: field("name"), Served: field("served") == "true", Storage: field("storage") == "true"}
			if s, _ := yamlpos.Lookup(v, "schema", "openAPIV3Schema"); s != nil {
				_ = s.Decode(&cv.Schema)
			}
			c.Versions = append(c.Versions, cv)
		}
	} else if v := str("spec", "version"); v != "" { // apiextensions.k8s.io/v1beta1
		c.Versions = append(c.Versions, CRDVersion{Name: v, Served: true, Storage: true})
	}
	return c
}

// CRDs is an inventory of the CRDs a repository installs, found once and
// shared by every consumer (schema validation, short-name and API version
// checks, the scope of custom kinds for Argo CD's tiers).
type CRDs struct {
	byName      map[string]*CRD
	byGroupKind map[string]int // group/kind -> index in list
	list        []CRD          // sorted by name
}

// NewCRDs returns an inventory of crds: one per name, the first given
// winning, sorted by name. CRDs without a name, group or plural (not
// valid for the API server) are left out.
func NewCRDs(crds ...*CRD) *CRDs {
	inv := &CRDs{byName: map[string]*CRD{}}
	for _, c := range crds {
		if c == nil || c.Name == "" || c.Group == "" || c.Plural == "" {
			continue
		}
		if _, ok := inv.byName[c.Name]; !ok {
			inv.byName[c.Name] = c
			inv.list = append(inv.list, *c)
		}
	}
	slices.SortFunc(inv.list, func(a, b CRD) int { return strings.Compare(a.Name, b.Name) })
	inv.byGroupKind = make(map[string]int, len(inv.list))
	for i, c := range inv.list {
		if _, ok := inv.byGroupKind[c.Group+"/"+c.Kind]; !ok {
			inv.byGroupKind[c.Group+"/"+c.Kind] = i
		}
	}
	return inv
}

// All returns every CRD, sorted by name.
func (inv *CRDs) All() []CRD {
	if inv == nil {
		return nil
	}
	return inv.list
}

// Lookup returns the CRD that defines group/kind.
func (inv *CRDs) Lookup(group, kind string) (*CRD, bool) {
	if inv == nil {
		return nil, false
	}
	i, ok := inv.byGroupKind[group+"/"+kind]
	if !ok {
		return nil, false
	}
	return &inv.list[i], true
}
