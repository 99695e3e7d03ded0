package lint

import (
	"strings"
)

// What makes a Secret in a cluster, as the cross-object rules see it.

// secretWriter is an object that makes (and owns) a Secret.
type secretWriter struct {
	ns, name string
	// how says what makes it, for messages: "itself", "the
	// ExternalSecret's target", ...
	how string
	p   placed
	// merges: the writer creates the Secret when it is missing and merges
	// its keys into one that exists, without owning it (ESO 2.8's
	// creationPolicy CreateOrMerge). It provides the Secret, and does not
	// fight another writer over it.
	merges bool
}

// secretWriters lists what makes Secrets in the cluster, in object order:
// rendered Secrets (not those that kubernetes-reflector fills from
// another), ExternalSecret targets that ESO creates (creationPolicy Owner
// or Orphan, or CreateOrMerge, which merges), unless the target is a
// manifest of another kind (spec.target.manifest), the ExternalSecrets a ClusterExternalSecret creates in each
// namespace it selects, cert-manager Certificates, SecretMirror copies and
// kubernetes-reflector automatic copies.
func (v *clusterView) secretWriters() []secretWriter {
	var out []secretWriter
	for _, p := range v.objs {
		o := p.o
		switch {
		case o.IsSecret():
			ann := stringMap(contentOf(o), "metadata", "annotations")
			if ann[reflectorPrefix+"reflects"] != "" {
				continue // a reflection target: filled from the source
			}
			out = append(out, secretWriter{p.ns, o.Name, "itself", p, false})
			if ann[reflectorPrefix+"reflection-allowed"] == "true" && ann[reflectorPrefix+"reflection-auto-enabled"] == "true" {
				for _, ns := range v.reflectorNamespaces(ann, p.ns) {
					out = append(out, secretWriter{ns, o.Name, "a kubernetes-reflector copy", p, false})
				}
			}
		case isKind(o, groupESO, "ExternalSecret"):
			if creates, merges := esCreates(mapAt(contentOf(o), "spec")); creates {
				out = append(out, secretWriter{p.ns, esTarget(contentOf(o), "spec", o.Name), "its target", p, merges})
			}
		case isKind(o, groupESO, "ClusterExternalSecret"):
			spec := mapAt(contentOf(o), "spec", "externalSecretSpec")
			creates, merges := esCreates(spec)
			if !creates {
				continue
			}
			esName := strAt(contentOf(o), "spec", "externalSecretName")
			if esName == "" {
				esName = o.Name
			}
			name := strAt(spec, "target", "name")
			if name == "" {
				name = esName
			}
			for _, ns := range v.cesNamespaces(contentOf(o)) {
				out = append(out, secretWriter{ns, name, "the target of an ExternalSecret it creates", p, merges})
			}
		case isKind(o, groupCertManager, "Certificate"):
			if name := strAt(contentOf(o), "spec", "secretName"); name != "" {
				out = append(out, secretWriter{p.ns, name, "its secretName", p, false})
			}
		case isKind(o, groupSecretMirror, "SecretMirror"):
			name := strAt(contentOf(o), "spec", "source", "name")
			var patterns []string
			for _, x := range listAt(contentOf(o), "spec", "destination", "namespaces") {
				if s, ok := x.(string); ok {
					patterns = append(patterns, s)
				}
			}
			for _, ns := range v.sortedNamespaces() {
				if name != "" && ns != p.ns && matchesAny(patterns, ns) {
					out = append(out, secretWriter{ns, name, "a SecretMirror copy", p, false})
				}
			}
		}
	}
	return out
}

// esCreates reports whether an ExternalSecret's spec makes its target
// Secret: creationPolicy Owner (the default) or Orphan, which own it, or
// CreateOrMerge (ESO 2.8), which makes it when it is missing and merges
// otherwise (merges); not Merge or None. A target that is a manifest of
// another kind (spec.target.manifest, ESO 1.0: a ConfigMap, an Argo CD
// Application) is no Secret at all.
func esCreates(spec map[string]any) (creates, merges bool) {
	if manifest := mapAt(spec, "target", "manifest"); manifest != nil && !(strAt(manifest, "apiVersion") == "v1" && strAt(manifest, "kind") == "Secret") {
		return false, false
	}
	switch strAt(spec, "target", "creationPolicy") {
	case "", "Owner", "Orphan":
		return true, false
	case "CreateOrMerge":
		return true, true
	}
	return false, false
}

// esTarget is an ExternalSecret's target Secret name: spec.target.name,
// or its own name.
func esTarget(content map[string]any, specKey, name string) string {
	if t := strAt(content, specKey, "target", "name"); t != "" {
		return t
	}
	return name
}

// cesNamespaces are the namespaces of the cluster a ClusterExternalSecret
// selects: spec.namespaces, and those spec.namespaceSelector or
// spec.namespaceSelectors match.
func (v *clusterView) cesNamespaces(content map[string]any) []string {
	var listed []string
	for _, x := range listAt(content, "spec", "namespaces") {
		if s, ok := x.(string); ok {
			listed = append(listed, s)
		}
	}
	var selectors []map[string]any
	if sel := mapAt(content, "spec", "namespaceSelector"); sel != nil {
		selectors = append(selectors, sel)
	}
	for _, x := range listAt(content, "spec", "namespaceSelectors") {
		if sel, ok := x.(map[string]any); ok {
			selectors = append(selectors, sel)
		}
	}
	var out []string
	for _, ns := range v.sortedNamespaces() {
		hit := false
		for _, n := range listed {
			hit = hit || n == ns
		}
		for _, sel := range selectors {
			hit = hit || selects(sel, v.namespaces[ns])
		}
		if hit {
			out = append(out, ns)
		}
	}
	return out
}

// reflectorNamespaces are the namespaces kubernetes-reflector copies an
// auto-enabled Secret into: those reflection-auto-namespaces names (every
// allowed one when it is empty), within reflection-allowed-namespaces
// (every namespace when that is empty), the source's own left out.
func (v *clusterView) reflectorNamespaces(ann map[string]string, own string) []string {
	split := func(s string) []string {
		var out []string
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	allowed := split(ann[reflectorPrefix+"reflection-allowed-namespaces"])
	auto := split(ann[reflectorPrefix+"reflection-auto-namespaces"])
	var out []string
	for _, ns := range v.sortedNamespaces() {
		if ns == own || len(allowed) > 0 && !matchesAny(allowed, ns) || len(auto) > 0 && !matchesAny(auto, ns) {
			continue
		}
		out = append(out, ns)
	}
	return out
}
