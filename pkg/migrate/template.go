package migrate

import (
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// lodashTag matches a KES (lodash) template tag: <%= expr %>, <%- expr %>
// or <% code %>.
var lodashTag = regexp.MustCompile(`(?s)<%([=-]?)(.*?)%>`)

// dataRef matches the one expression that translates mechanically: a
// fetched value, data.NAME or data['NAME'].
var dataRef = regexp.MustCompile(`^\s*data(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[\s*(?:'([^']*)'|"([^"]*)")\s*\])\s*$`)

var goIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// convertTemplate translates a KES template (type, metadata labels and
// annotations, stringData, all lodash) into ESO's v2 template. In a chart
// template (helm), ESO's own {{ }} are escaped for Helm.
func convertTemplate(t *yaml.Node, helm bool) (*yaml.Node, error) {
	if t.Kind != yaml.MappingNode {
		return nil, refuse(t, "spec.template is not a mapping")
	}
	out := mapping()
	set(out, "engineVersion", str("v2"))
	var typ, md, data *yaml.Node
	for i := 0; i+1 < len(t.Content); i += 2 {
		k, v := t.Content[i], t.Content[i+1]
		switch k.Value {
		case "type":
			typ = clone(v)
		case "metadata":
			if v.Kind != yaml.MappingNode {
				return nil, refuse(v, "spec.template.metadata is not a mapping")
			}
			md = mapping()
			for j := 0; j+1 < len(v.Content); j += 2 {
				mk, mv := v.Content[j], v.Content[j+1]
				if mk.Value != "labels" && mk.Value != "annotations" {
					return nil, refuse(mk, "spec.template.metadata.%s: External Secrets Operator templates set labels and annotations only", mk.Value)
				}
				tm, err := translateMap(mv, "spec.template.metadata."+mk.Value, helm)
				if err != nil {
					return nil, err
				}
				set(md, mk.Value, tm)
			}
		case "stringData":
			var err error
			if data, err = translateMap(v, "spec.template.stringData", helm); err != nil {
				return nil, err
			}
		case "data":
			return nil, refuse(k, "spec.template.data holds base64 values, and External Secrets Operator templates make strings: write them as stringData first")
		default:
			return nil, refuse(k, "spec.template.%s has no External Secrets Operator equivalent repotool translates", k.Value)
		}
	}
	if data != nil {
		// KES adds the templated keys to the fetched ones.
		set(out, "mergePolicy", str("Merge"))
	}
	if typ != nil {
		set(out, "type", typ)
	}
	if md != nil {
		set(out, "metadata", md)
	}
	if data != nil {
		set(out, "data", data)
	}
	return out, nil
}

// translateMap translates the string values of a mapping.
func translateMap(m *yaml.Node, field string, helm bool) (*yaml.Node, error) {
	if m.Kind != yaml.MappingNode {
		return nil, refuse(m, "%s is not a mapping", field)
	}
	out := mapping()
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if strings.Contains(k.Value, "<%") {
			return nil, refuse(k, "%s: a key made by a template expression", field)
		}
		if v.Kind != yaml.ScalarNode {
			return nil, refuse(v, "%s.%s is not a string", field, k.Value)
		}
		text, err := translate(v.Value, helm)
		if err != nil {
			return nil, refuse(v, "%s.%s: %s", field, k.Value, err.Error())
		}
		tv := clone(v)
		tv.Value = text
		set(out, k.Value, tv)
	}
	return out, nil
}

// translate turns a lodash template string into a Go template string
// when every tag is a fetched value; otherwise it says which tag is not.
func translate(s string, helm bool) (string, error) {
	var b strings.Builder
	last := 0
	action := func(a string) string {
		if helm {
			return "{{ `" + a + "` }}"
		}
		return a
	}
	literal := func(t string) {
		// A literal {{ would start an action in ESO's template.
		b.WriteString(strings.ReplaceAll(t, "{{", action(`{{ "{{" }}`)))
	}
	for _, m := range lodashTag.FindAllStringSubmatchIndex(s, -1) {
		literal(s[last:m[0]])
		last = m[1]
		mode, expr := s[m[2]:m[3]], s[m[4]:m[5]]
		ref := dataRef.FindStringSubmatch(expr)
		if mode != "=" || ref == nil {
			return "", &refusal{reason: "the template expression <%" + mode + strings.TrimRight(expr, " ") + " %> is code, not a fetched value (data.NAME): " +
				"rewrite it with External Secrets Operator's template functions by hand"}
		}
		name := ref[1] + ref[2] + ref[3]
		if goIdent.MatchString(name) {
			b.WriteString(action("{{ ." + name + " }}"))
		} else {
			b.WriteString(action(`{{ index . "` + strings.ReplaceAll(name, `"`, `\"`) + `" }}`))
		}
	}
	literal(s[last:])
	return b.String(), nil
}
