package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v3"
)

// ApplicationsConfig says where the repository's own Argo CD Applications
// are: each Application there is a target of the cluster it deploys to,
// beside the targets the folders make (docs/applications.md).
type ApplicationsConfig struct {
	// Paths are globs of the files that hold Applications, relative to the
	// repository root, matched as Argo CD matches globs (doublestar: "**"
	// is any number of folders). A segment "{cluster}" matches a cluster's
	// name and makes the Applications in it that cluster's: in a
	// repository of one Argo CD per cluster, every Application says
	// https://kubernetes.default.svc, and the file's place tells which.
	Paths []string `yaml:"paths" json:"paths,omitempty"`
}

// Enabled reports whether the repository's Applications are targets.
func (a ApplicationsConfig) Enabled() bool { return len(a.Paths) > 0 }

// ClusterPart is the part of a path of Applications that names their cluster.
const ClusterPart = "{cluster}"

// MatchApplications reports whether the repository file p is one of the
// glob's files, with the cluster its {cluster} segment names ("" when it
// has none).
func MatchApplications(glob, p string) (cluster string, ok bool) {
	gs, ps := strings.Split(glob, "/"), strings.Split(p, "/")
	i := slices.Index(gs, ClusterPart)
	if i < 0 {
		ok, _ := doublestar.Match(glob, p)
		return "", ok
	}
	// {cluster} comes after literal or globbed segments, never "**" (validateApplications).
	if len(ps) <= i {
		return "", false
	}
	if ok, _ := doublestar.Match(strings.Join(gs[:i], "/"), strings.Join(ps[:i], "/")); i > 0 && !ok {
		return "", false
	}
	if ok, _ := doublestar.Match(strings.Join(gs[i+1:], "/"), strings.Join(ps[i+1:], "/")); !ok {
		return "", false
	}
	return ps[i], ps[i] != "" && !strings.HasPrefix(ps[i], ".")
}

// validateApplications checks the applications section.
func validateApplications(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
	for _, p := range cfg.Applications.Paths {
		segs := strings.Split(p, "/")
		n := strings.Count(p, ClusterPart)
		switch {
		case !doublestar.ValidatePattern(p) || !fsValidPath(strings.ReplaceAll(p, ClusterPart, "c")):
			return bad(fmt.Sprintf("applications.paths: %q is not a glob of files inside the repository, like \"argocd/**/*.yaml\"", p), "applications", "paths")
		case n > 1 || n == 1 && !slices.Contains(segs, ClusterPart):
			return bad(fmt.Sprintf("applications.paths: %q: {cluster} must be a whole folder name, once", p), "applications", "paths")
		case n == 1 && slices.Contains(segs[:slices.Index(segs, ClusterPart)], "**"):
			return bad(fmt.Sprintf("applications.paths: %q: {cluster} cannot follow **: say which folder names the cluster", p), "applications", "paths")
		}
	}
	return nil
}
