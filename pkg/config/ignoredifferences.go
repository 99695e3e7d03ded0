package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/jsonptr"
)

// IgnoreDifference is one entry of an Argo CD Application's
// spec.ignoreDifferences: the fields of the objects it names that Argo CD
// does not compare with the cluster. generate writes them into the
// Applications, and repotool diff hides a change to those fields too
// (Covers).
type IgnoreDifference struct {
	Group                 string   `yaml:"group" json:"group,omitempty"`
	Kind                  string   `yaml:"kind" json:"kind"`
	Name                  string   `yaml:"name" json:"name,omitempty"`
	Namespace             string   `yaml:"namespace" json:"namespace,omitempty"`
	JSONPointers          []string `yaml:"jsonPointers" json:"jsonPointers,omitempty"`
	JQPathExpressions     []string `yaml:"jqPathExpressions" json:"jqPathExpressions,omitempty"`
	ManagedFieldsManagers []string `yaml:"managedFieldsManagers" json:"managedFieldsManagers,omitempty"`
}

// Selects reports whether the entry applies to the object group, kind,
// namespace and name: its group and kind exactly, its namespace and name
// when it gives them.
func (d IgnoreDifference) Selects(group, kind, namespace, name string) bool {
	return d.Group == group && d.Kind == kind && (d.Name == "" || d.Name == name) && (d.Namespace == "" || d.Namespace == namespace)
}

// Covers reports whether the entry covers the field ptr (a JSON pointer)
// of the objects it selects: one of its jsonPointers, or one of its
// jqPathExpressions written as a plain path (.spec.template.spec.containers[0].image,
// ["key"], [] for any item), is the field or above it. Other jq, and
// managedFieldsManagers, are Argo CD's alone: they cover nothing here.
// The one reading of an entry's fields, for lint and diff alike.
func (d IgnoreDifference) Covers(ptr string) bool {
	for _, jp := range d.JSONPointers {
		if ptr == jp || strings.HasPrefix(ptr, strings.TrimSuffix(jp, "/")+"/") {
			return true
		}
	}
	for _, jq := range d.JQPathExpressions {
		if tokens, ok := jqPath(jq); ok && tokensCover(tokens, jsonptr.Split(ptr)) {
			return true
		}
	}
	return false
}

// IgnoreDifferencesFor are the ignoreDifferences of namespace ns's
// Applications: argocd.ignoreDifferences, then the namespace's own.
func (c *Config) IgnoreDifferencesFor(ns string) []IgnoreDifference {
	return slices.Concat(c.ArgoCD.IgnoreDifferences, c.Namespaces[ns].IgnoreDifferences)
}

func validateIgnoreDifferences(file string, root *yaml.Node, cfg *Config) error {
	check := func(list []IgnoreDifference, at ...string) error {
		for _, d := range list {
			msg := ""
			switch {
			case d.Kind == "":
				msg = "an ignoreDifferences entry needs the kind it applies to"
			case len(d.JSONPointers)+len(d.JQPathExpressions)+len(d.ManagedFieldsManagers) == 0:
				msg = fmt.Sprintf("the ignoreDifferences entry for %s names no field: give jsonPointers, jqPathExpressions or managedFieldsManagers", d.Kind)
			}
			for _, p := range d.JSONPointers {
				if !strings.HasPrefix(p, "/") {
					msg = fmt.Sprintf("%q is not a JSON pointer: start it with /", p)
				}
			}
			if msg != "" {
				return badAt(file, root)(msg, at...)
			}
		}
		return nil
	}
	if err := check(cfg.ArgoCD.IgnoreDifferences, "argocd", "ignoreDifferences"); err != nil {
		return err
	}
	for _, ns := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		if err := check(cfg.Namespaces[ns].IgnoreDifferences, "namespaces", ns, "ignoreDifferences"); err != nil {
			return err
		}
	}
	return nil
}

// jqStep is one step of a plain jq path: .name, ["name"], [N] or [].
var jqStep = regexp.MustCompile(`^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\.?\["((?:[^"\\]|\\.)*)"\]|\.?\[(\d+)\]|\.?\[\])`)

// jqPath reads a jq path expression written as a plain path into pointer
// tokens, "*" for []; ok is false for any other jq.
func jqPath(expr string) ([]string, bool) {
	rest := strings.TrimSpace(expr)
	var tokens []string
	for rest != "" {
		m := jqStep.FindStringSubmatchIndex(rest)
		if m == nil {
			return nil, false
		}
		switch {
		case m[2] >= 0:
			tokens = append(tokens, rest[m[2]:m[3]])
		case m[4] >= 0:
			s, err := strconv.Unquote(`"` + rest[m[4]:m[5]] + `"`)
			if err != nil {
				return nil, false
			}
			tokens = append(tokens, s)
		case m[6] >= 0:
			tokens = append(tokens, rest[m[6]:m[7]])
		default:
			tokens = append(tokens, "*")
		}
		rest = rest[m[1]:]
	}
	return tokens, len(tokens) > 0
}

// tokensCover reports whether the path pattern covers the field: it is the
// field or above it, "*" matching any item.
func tokensCover(pattern, field []string) bool {
	if len(pattern) > len(field) {
		return false
	}
	for i, t := range pattern {
		if t != "*" && t != field[i] {
			return false
		}
	}
	return true
}
