package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The parts a target template must name.
const (
	PartCluster   = "cluster"
	PartNamespace = "namespace"
)

// MaxTemplateSegments bounds a target template: the folders below the root
// repotool walks to find the targets.
const MaxTemplateSegments = 8

// TargetTemplate is layout.targets parsed: the folders from the root to a
// target's folder, each a literal name or a named part.
type TargetTemplate struct {
	// Segments are the folder names, a part written "{name}".
	Segments []string
}

var partRE = regexp.MustCompile(`^\{([a-z][a-z0-9]*)\}$`)

// Part returns the name of segment i's part, "" for a literal folder.
func (t TargetTemplate) Part(i int) string {
	if m := partRE.FindStringSubmatch(t.Segments[i]); m != nil {
		return m[1]
	}
	return ""
}

// Index returns the segment of part name, -1 when there is none.
func (t TargetTemplate) Index(name string) int {
	return slices.Index(t.Segments, "{"+name+"}")
}

// NamespaceFirst reports whether a namespace's folder holds its clusters'
// targets (projects/{namespace}/{cluster}): the namespace folder, up to
// {namespace}, holds its chart and common values.
func (t TargetTemplate) NamespaceFirst() bool { return t.Index(PartNamespace) < t.Index(PartCluster) }

// Prefix returns the template's first n segments, with the parts
// filled in from parts.
func (t TargetTemplate) Prefix(n int, parts map[string]string) string {
	out := make([]string, n)
	for i := range n {
		if p := t.Part(i); p != "" {
			out[i] = parts[p]
		} else {
			out[i] = t.Segments[i]
		}
	}
	return strings.Join(out, "/")
}

// Match reports whether the folder p (a clean path relative to the
// repository's root) is one the template names, and its parts: each
// literal segment equal, each part a folder's name.
func (t TargetTemplate) Match(p string) (map[string]string, bool) {
	segs := strings.Split(p, "/")
	if len(segs) != len(t.Segments) {
		return nil, false
	}
	parts := map[string]string{}
	for i, seg := range segs {
		switch name := t.Part(i); {
		case name != "" && seg != "" && seg != "." && seg != "..":
			parts[name] = seg
		case name != "" || seg != t.Segments[i]:
			return nil, false
		}
	}
	return parts, true
}

// ParseTargetTemplate parses layout.targets.
func ParseTargetTemplate(s string) (TargetTemplate, error) {
	t := TargetTemplate{Segments: strings.Split(s, "/")}
	if len(t.Segments) > MaxTemplateSegments {
		return t, fmt.Errorf("%q has %d folders, more than %d", s, len(t.Segments), MaxTemplateSegments)
	}
	seen := map[string]bool{}
	for i, seg := range t.Segments {
		name := t.Part(i)
		switch {
		case name != "" && seen[name]:
			return t, fmt.Errorf("%q names {%s} twice", s, name)
		case name != "":
			seen[name] = true
		case strings.ContainsAny(seg, "{}*?[\\"):
			return t, fmt.Errorf("%q: %q is neither a folder name nor a part like {cluster}", s, seg)
		case !fsValidPath(seg):
			return t, fmt.Errorf("%q: %q is not a folder name inside the repository", s, seg)
		}
	}
	if !seen[PartCluster] || !seen[PartNamespace] {
		return t, fmt.Errorf("%q must name {cluster} and {namespace}, like \"clusters/{cluster}/{namespace}\"", s)
	}
	return t, nil
}

// TargetTemplate returns the layout's target template: layout.targets, or
// <clustersDir>/{cluster}/{namespace}.
func (l LayoutConfig) TargetTemplate() TargetTemplate {
	if l.Targets != "" {
		if t, err := ParseTargetTemplate(l.Targets); err == nil {
			return t
		}
	}
	return TargetTemplate{Segments: append(strings.Split(l.ClustersDir, "/"), "{"+PartCluster+"}", "{"+PartNamespace+"}")}
}

// Templated reports whether layout.targets replaces the default walk of
// <clustersDir>/<cluster>/<namespace>.
func (l LayoutConfig) Templated() bool {
	return l.Targets != "" && l.Targets != l.ClustersDir+"/{"+PartCluster+"}/{"+PartNamespace+"}"
}
