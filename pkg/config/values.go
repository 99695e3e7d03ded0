package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Where a target's chart and values come from, when the folders do not say
// it: a chart shared by several namespaces (NamespaceConfig.Chart), and a
// target's values files listed in merge order (ClusterDefaults.Values,
// ClusterConfig.Values) instead of found by pattern in lexical order.

// Placeholders a listed values path may hold: the target's cluster and
// namespace.
const (
	PlaceholderCluster   = "{cluster}"
	PlaceholderNamespace = "{namespace}"
)

// ValuesFiles are values files listed in merge order (later wins), with
// the line of the list in repotool.yaml.
type ValuesFiles struct {
	Files []PathAt
	Line  int
}

// UnmarshalYAML reads the list and remembers its line.
func (v *ValuesFiles) UnmarshalYAML(n *yaml.Node) error {
	v.Line = n.Line
	return n.Decode(&v.Files)
}

// MarshalYAML writes the list alone.
func (v ValuesFiles) MarshalYAML() (any, error) { return v.Files, nil }

// MarshalJSON writes the list alone.
func (v ValuesFiles) MarshalJSON() ([]byte, error) { return json.Marshal(v.Files) }

// ValuesList is a target's values files as repotool.yaml lists them, and
// the entry that lists them ("clusters.prod.values.shop",
// "defaults.values.hub-*").
type ValuesList struct {
	ValuesFiles
	Key string
}

// Expand returns the list's paths for a target, placeholders replaced.
func (l ValuesList) Expand(cluster, namespace string) []PathAt {
	out := make([]PathAt, len(l.Files))
	for i, f := range l.Files {
		out[i] = PathAt{Path: ExpandPath(f.Path, cluster, namespace), Line: f.Line}
	}
	return out
}

// ExpandPath replaces a listed path's placeholders.
func ExpandPath(p, cluster, namespace string) string {
	return strings.NewReplacer(PlaceholderCluster, cluster, PlaceholderNamespace, namespace).Replace(p)
}

// PerCluster reports whether a listed path names the target's cluster: a
// values file that differs by cluster.
func PerCluster(p string) bool { return strings.Contains(p, PlaceholderCluster) }

// TargetValues returns the values list repotool.yaml gives a target: the
// cluster's entry for the namespace, else the defaults' entry named after
// it, else the defaults' patterns that match it (path.Match). ok is false
// when none does: the files are found by pattern. More than one matching
// pattern is an error, naming them.
func (c *Config) TargetValues(cluster, namespace string) (list ValuesList, ok bool, err error) {
	if fs, found := c.Clusters[cluster].Values[namespace]; found {
		return ValuesList{fs, "clusters." + cluster + ".values." + namespace}, true, nil
	}
	if fs, found := c.Defaults.Values[namespace]; found {
		return ValuesList{fs, "defaults.values." + namespace}, true, nil
	}
	var matched []string
	for _, pattern := range slices.Sorted(maps.Keys(c.Defaults.Values)) {
		if m, _ := path.Match(pattern, namespace); m {
			matched = append(matched, pattern)
		}
	}
	switch len(matched) {
	case 0:
		return ValuesList{}, false, nil
	case 1:
		return ValuesList{c.Defaults.Values[matched[0]], "defaults.values." + matched[0]}, true, nil
	}
	return ValuesList{}, false, fmt.Errorf("defaults.values patterns %s all match namespace %q: list its values under its own name, or make the patterns "+
		"exclusive", strings.Join(matched, ", "), namespace)
}

// validateValues checks namespaces.<ns>.chart and the values lists.
func validateValues(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
	for _, name := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		if ch := cfg.Namespaces[name].Chart.Path; ch != "" && (!fsValidPath(ch) || path.Clean(ch) != ch) {
			return bad(fmt.Sprintf("namespaces.%s.chart: %q must be a chart folder inside the repository, relative to its root, like \"charts/app\"",
				name, ch), "namespaces", name, "chart")
		}
	}
	if err := validateValuesLists(file, root, cfg.Defaults.Values, true, "defaults"); err != nil {
		return err
	}
	for _, cl := range slices.Sorted(maps.Keys(cfg.Clusters)) {
		if err := validateValuesLists(file, root, cfg.Clusters[cl].Values, false, "clusters", cl); err != nil {
			return err
		}
	}
	return nil
}

// validateValuesLists checks one values section: its keys (namespace
// names, or patterns where patterns is set) and each list's paths.
func validateValuesLists(file string, root *yaml.Node, lists map[string]ValuesFiles, patterns bool, at ...string) error {
	bad := badAt(file, root)
	where := strings.Join(at, ".") + ".values"
	for _, ns := range slices.Sorted(maps.Keys(lists)) {
		keys := append(slices.Clone(at), "values", ns)
		_, perr := path.Match(ns, "")
		if perr != nil || checkName(ns) != nil && (!patterns || !strings.ContainsAny(ns, "*?[")) {
			what := "a namespace name"
			if patterns {
				what += " or a pattern (like \"hub-*\")"
			}
			return bad(fmt.Sprintf("%s: %q is not %s", where, ns, what), keys...)
		}
		list := lists[ns]
		if len(list.Files) == 0 {
			return bad(fmt.Sprintf("%s.%s: the list is empty; list the values files in merge order, or remove the entry", where, ns), keys...)
		}
		seen := map[string]int{}
		for _, f := range list.Files {
			if msg := checkListedPath(f.Path); msg != "" {
				return &Error{File: file, Line: f.Line, Message: fmt.Sprintf("%s.%s: %q %s", where, ns, f.Path, msg)}
			}
			if first, dup := seen[f.Path]; dup {
				return &Error{File: file, Line: f.Line, Message: fmt.Sprintf("%s.%s: %q is listed twice (first at line %d); list each file once, "+
					"where it belongs in the merge order", where, ns, f.Path, first)}
			}
			seen[f.Path] = f.Line
		}
	}
	return nil
}

// checkListedPath says what is wrong with a listed values path, "" if
// nothing.
func checkListedPath(p string) string {
	bare := ExpandPath(p, "c", "n")
	switch {
	case strings.ContainsAny(bare, "{}"):
		return "holds a placeholder other than {cluster} and {namespace}"
	case !fsValidPath(bare) || path.Clean(bare) != bare:
		return "must be a file path inside the repository, relative to its root, like \"clusters/{cluster}/{namespace}/values.yaml\""
	}
	return ""
}
