package appset

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// InClusterServer and InClusterName are the cluster Argo CD runs in, as
// it names it when no Secret does.
const (
	InClusterServer = "https://kubernetes.default.svc"
	InClusterName   = "in-cluster"
)

// secretType is the label every cluster Secret has, which the clusters
// generator adds to its selector and passes on in metadata.labels.
const secretType = "argocd.argoproj.io/secret-type"

// excludedAnnotations are the annotations of a cluster Secret the
// clusters generator does not pass on.
var excludedAnnotations = []string{
	"argocd.argoproj.io/refresh", "argocd.argoproj.io/refresh-timestamp",
	"argocd.argoproj.io/hydrate", "argocd.argoproj.io/hydrate-timestamp",
	"argocd.argoproj.io/tracking-id", "argocd.argoproj.io/installation-id",
	"kubectl.kubernetes.io/last-applied-configuration",
}

// clusters is the clusters generator: a parameter set for each cluster
// Secret its selector matches, and for the cluster Argo CD runs in when
// it has no selector and no Secret describes it.
func (s *set) clusters(n *yaml.Node) ([]pset, error) {
	var c struct {
		Values   map[string]string `yaml:"values"`
		FlatList bool              `yaml:"flatList"`
	}
	if err := n.Decode(&c); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return nil, &Error{Line: line, Msg: msg}
	}
	match := func(map[string]string) bool { return true }
	sel, _ := yamlpos.Lookup(n, "selector")
	local := true
	if sel != nil && sel.ShortTag() != "!!null" {
		var err error
		if match, err = selector(sel); err != nil {
			return nil, err
		}
		ml, _ := yamlpos.Lookup(sel, "matchLabels")
		me, _ := yamlpos.Lookup(sel, "matchExpressions")
		local = (ml == nil || len(ml.Content) == 0) && (me == nil || len(me.Content) == 0)
	}
	var out []map[string]any
	clusters := slices.SortedFunc(slices.Values(s.env.Clusters), func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	for _, cl := range clusters {
		if !cl.Secret {
			continue
		}
		labels := maps.Clone(cl.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[secretType] = "cluster"
		if !match(labels) {
			continue
		}
		if cl.Name == "" {
			return nil, &Error{Line: n.Line,
				Msg: fmt.Sprintf("the clusters generator reads cluster %s, whose name in Argo CD repotool does not know: set its destination.name", cl.Server)}
		}
		local = local && strings.TrimSuffix(cl.Server, "/") != InClusterServer
		out = append(out, s.clusterParams(cl, labels))
	}
	if local {
		out = append(out, map[string]any{"name": InClusterName, "nameNormalized": InClusterName, "server": InClusterServer, "project": ""})
	}
	for _, p := range out {
		if err := s.appendValues(n, c.Values, p); err != nil {
			return nil, err
		}
	}
	if c.FlatList {
		return []pset{{p: map[string]any{"clusters": out}}}, nil
	}
	return wrap(out), nil
}

// clusterParams are a cluster Secret's parameters.
func (s *set) clusterParams(cl Cluster, labels map[string]string) map[string]any {
	p := map[string]any{"name": cl.Name, "nameNormalized": sanitizeName(cl.Name), "server": cl.Server, "project": ""}
	annotations := map[string]string{}
	for k, v := range cl.Annotations {
		if !slices.Contains(excludedAnnotations, k) {
			annotations[k] = v
		}
	}
	if s.r.goTemplate {
		meta := map[string]any{"labels": labels}
		if len(cl.Annotations) > 0 {
			meta["annotations"] = annotations
		}
		p["metadata"] = meta
		return p
	}
	for k, v := range annotations {
		p["metadata.annotations."+k] = v
	}
	for k, v := range labels {
		p["metadata.labels."+k] = v
	}
	return p
}

// appendValues adds a generator's values, each rendered with the
// parameters it has so far: values.<key>, or values as a map with
// goTemplate.
func (s *set) appendValues(n *yaml.Node, values map[string]string, p map[string]any) error {
	add := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v, err := s.r.replace(values[k], p)
		if err != nil {
			return &Error{Line: yamlpos.Line(n, n.Line, "values", k), Msg: fmt.Sprintf("values.%s: %v", k, err)}
		}
		if !s.r.goTemplate {
			add["values."+k] = v
			continue
		}
		if add["values"] == nil {
			add["values"] = map[string]string{}
		}
		add["values"].(map[string]string)[k] = v
	}
	maps.Copy(p, add)
	return nil
}
