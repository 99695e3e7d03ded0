package appset

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// selector reads a label selector (matchLabels, matchExpressions) into a
// test of a set of labels; an empty one matches everything.
func selector(n *yaml.Node) (func(map[string]string) bool, error) {
	var sel struct {
		MatchLabels      map[string]string `yaml:"matchLabels"`
		MatchExpressions []struct {
			Key      string   `yaml:"key"`
			Operator string   `yaml:"operator"`
			Values   []string `yaml:"values"`
		} `yaml:"matchExpressions"`
	}
	if err := n.Decode(&sel); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return nil, &Error{Line: line, Msg: "selector: " + msg}
	}
	type req struct {
		key, op string
		values  []string
	}
	var reqs []req
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		reqs = append(reqs, req{k, "In", []string{sel.MatchLabels[k]}})
	}
	for _, e := range sel.MatchExpressions {
		switch {
		case e.Key == "":
			return nil, &Error{Line: n.Line, Msg: "selector: a match expression has no key"}
		case (e.Operator == "In" || e.Operator == "NotIn") && len(e.Values) == 0:
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("selector: %s %s needs values", e.Key, e.Operator)}
		case (e.Operator == "Exists" || e.Operator == "DoesNotExist") && len(e.Values) > 0:
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("selector: %s %s takes no values", e.Key, e.Operator)}
		case !slices.Contains([]string{"In", "NotIn", "Exists", "DoesNotExist"}, e.Operator):
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("selector: %q is not a valid selector operator (In, NotIn, Exists, DoesNotExist)", e.Operator)}
		}
		reqs = append(reqs, req{e.Key, e.Operator, e.Values})
	}
	return func(labels map[string]string) bool {
		for _, r := range reqs {
			v, has := labels[r.key]
			ok := false
			switch r.op {
			case "In":
				ok = has && slices.Contains(r.values, v)
			case "NotIn":
				ok = !has || !slices.Contains(r.values, v)
			case "Exists":
				ok = has
			case "DoesNotExist":
				ok = !has
			}
			if !ok {
				return false
			}
		}
		return true
	}, nil
}

// flatten is a parameter set as the labels a generator's selector tests:
// nested keys joined with '.', list items by index, each value as %v.
func flatten(p map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(join(prefix, k), e)
			}
		case map[string]string:
			for k, e := range x {
				out[join(prefix, k)] = e
			}
		case []any:
			for i, e := range x {
				walk(join(prefix, fmt.Sprint(i)), e)
			}
		default:
			out[prefix] = fmt.Sprintf("%v", v)
		}
	}
	for k, v := range p {
		walk(k, v)
	}
	return out
}

func join(prefix, k string) string {
	return strings.TrimPrefix(prefix+"."+k, ".")
}
