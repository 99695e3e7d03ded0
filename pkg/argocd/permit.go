package argocd

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gobwas/glob"
)

// Refusal says why an AppProject does not permit an object: what Argo CD
// answers at sync time, known before it.
type Refusal struct {
	// Project is the refusing project's name.
	Project string
	// Reason names the project field that refuses the object.
	Reason string
}

func (r *Refusal) Error() string { return "AppProject " + r.Project + " " + r.Reason }

// Permits answers, as Argo CD's AppProject.IsResourcePermitted does,
// whether an Application of project p may deploy an object of kind gk into
// namespace ("" for a cluster-scoped object) on the cluster dest names
// (Server or Name; its Namespace is ignored). It returns nil when it may,
// and a *Refusal saying which rule refuses it otherwise.
//
// Lists mean what they mean to Argo CD: an absent (nil)
// namespaceResourceWhitelist permits every namespaced kind, an empty one
// none (repotool never writes an empty one: it would be left out of the
// YAML). Patterns follow Argo CD's: kinds
// and groups are matched with filepath.Match, destinations with glob
// patterns, "!" negating a destination pattern.
func (p *AppProject) Permits(gk GroupKind, namespace string, dest ApplicationDestination) error {
	refuse := func(format string, args ...any) error {
		return &Refusal{Project: p.Metadata.Name, Reason: fmt.Sprintf(format, args...)}
	}
	what := gk.Kind
	if gk.Group != "" {
		what = gk.Group + "/" + gk.Kind
	}
	if namespace == "" {
		switch {
		case !inList(gk, p.Spec.ClusterResourceWhitelist):
			return refuse("does not permit the cluster-scoped kind %s: it is not in clusterResourceWhitelist", what)
		case inList(gk, p.Spec.ClusterResourceBlacklist):
			return refuse("does not permit the cluster-scoped kind %s: it is in clusterResourceBlacklist", what)
		}
		return nil
	}
	switch {
	case p.Spec.NamespaceResourceWhitelist != nil && !inList(gk, p.Spec.NamespaceResourceWhitelist):
		return refuse("does not permit the kind %s: it is not in namespaceResourceWhitelist", what)
	case inList(gk, p.Spec.NamespaceResourceBlacklist):
		return refuse("does not permit the kind %s: it is in namespaceResourceBlacklist", what)
	}
	dest.Namespace = namespace
	if !p.destinationMatched(dest) {
		cluster := dest.Server
		if dest.Name != "" {
			cluster = dest.Name
		}
		return refuse("does not permit namespace %s on %s: it is not among the project's destinations", namespace, cluster)
	}
	return nil
}

// inList is Argo CD's isResourceInList.
func inList(gk GroupKind, list []GroupKind) bool {
	for _, item := range list {
		if ok, err := filepath.Match(item.Kind, gk.Kind); ok && err == nil {
			if ok, err := filepath.Match(item.Group, gk.Group); ok && err == nil {
				return true
			}
		}
	}
	return false
}

// destinationMatched is Argo CD's AppProject.isDestinationMatched.
func (p *AppProject) destinationMatched(dst ApplicationDestination) bool {
	matched := false
	for _, item := range p.Spec.Destinations {
		nameMatched := dst.Name != "" && globMatch(item.Name, dst.Name)
		serverMatched := dst.Server != "" && globMatch(item.Server, dst.Server)
		namespaceMatched := globMatch(item.Namespace, dst.Namespace)
		switch {
		case (serverMatched || nameMatched) && namespaceMatched:
			matched = true
		case (!nameMatched && isDeny(item.Name)) || (!serverMatched && isDeny(item.Server)) && namespaceMatched:
			return false
		case !namespaceMatched && isDeny(item.Namespace) && serverMatched:
			return false
		}
	}
	return matched
}

// globMatch is Argo CD's globMatch with negation allowed: the same glob
// library, a pattern that does not compile matching nothing.
func globMatch(pattern, val string) bool {
	if isDeny(pattern) {
		return !match(pattern[1:], val)
	}
	if pattern == "*" {
		return true
	}
	return match(pattern, val)
}

// match is Argo CD's glob.Match, each pattern compiled once (lint asks
// every object of every cluster; the patterns are a project's few).
func match(pattern, val string) bool {
	g, ok := globs.Load(pattern)
	if !ok {
		c, err := glob.Compile(pattern)
		if err != nil {
			c = nil // matches nothing, as Argo CD's does
		}
		g, _ = globs.LoadOrStore(pattern, c)
	}
	c, _ := g.(glob.Glob)
	return c != nil && c.Match(val)
}

// globs are the compiled patterns, by pattern (nil: does not compile).
var globs sync.Map

func isDeny(pattern string) bool { return strings.HasPrefix(pattern, "!") }
