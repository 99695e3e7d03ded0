package diff

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
)

// generatedClusters returns the clusters whose generated Argo CD objects
// the change can alter, or nil for all: when every changed path is inside
// a cluster's folder, only that cluster's objects are made from it (its
// Applications, its projects' destinations); a change anywhere else (the
// configuration, a chart, whose CRDs decide the projects' kinds of every
// cluster) may alter any cluster's.
func generatedClusters(base, head *layout.Repo, changed []string) []string {
	clusters := map[string]bool{}
	for _, p := range changed {
		found := false
		for _, repo := range []*layout.Repo{base, head} {
			if c, ok := repo.ClusterOf(p); ok {
				clusters[c], found = true, true
			}
		}
		if !found {
			return nil
		}
	}
	return slices.Sorted(maps.Keys(clusters))
}

// compareGenerated compares the Argo CD objects generate makes at both
// revisions, for the clusters given (all when nil). A repository without
// git.repoURL at either revision generates nothing, and nothing is
// compared.
func compareGenerated(base, head *layout.Repo, clusters []string) ([]change.Change, []string, error) {
	var warnings []string
	gen := func(repo *layout.Repo, rev string) (map[string]argocd.File, error) {
		var only []string
		for _, c := range clusters {
			if _, ok := repo.Cluster(c); ok {
				only = append(only, c)
			}
		}
		if clusters != nil && only == nil {
			return map[string]argocd.File{}, nil // the cluster is not at this revision
		}
		files, err := argocd.Generate(repo, argocd.Options{Clusters: only})
		var le *layout.Errors
		switch {
		case errors.Is(err, argocd.ErrNoRepoURL):
			return nil, nil
		case errors.As(err, &le):
			// generate refuses a broken layout; the targets' own errors
			// are reported with them.
			warnings = append(warnings, fmt.Sprintf("the generated Argo CD objects are not compared: the layout at %s has errors", rev))
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("generate at %s: %w", rev, err)
		}
		m := map[string]argocd.File{}
		for _, f := range files {
			m[f.Path()] = f
		}
		return m, nil
	}
	b, err := gen(base, "base")
	if err != nil {
		return nil, warnings, err
	}
	h, err := gen(head, "head")
	if err != nil || b == nil || h == nil {
		return nil, warnings, err
	}
	var out []change.Change
	for _, p := range slices.Sorted(maps.Keys(mergeKeys(b, h))) {
		bf, inBase := b[p]
		hf, inHead := h[p]
		var before, after []byte
		if inBase {
			before, _ = bf.Bytes()
		}
		if inHead {
			after, _ = hf.Bytes()
		}
		if bytes.Equal(before, after) {
			continue
		}
		c := change.Change{Target: path.Dir(p), Object: p, Action: "changed", Diff: unified(before, after, "base/"+p, "head/"+p)}
		if inBase {
			c.Key = generatedKey(bf)
		} else {
			c.Key = generatedKey(hf)
		}
		switch {
		case !inBase:
			c.Action = "added"
		case !inHead:
			c.Action = "removed"
			if app, ok := bf.Object.(*argocd.Application); ok && app.Spec.SyncPolicy != nil &&
				app.Spec.SyncPolicy.Automated != nil && app.Spec.SyncPolicy.Automated.Prune {
				warnings = append(warnings, fmt.Sprintf("Application %s (cluster %s) is removed and syncs with automated prune: when the root application syncs, "+
					"Argo CD deletes every resource it deployed", app.Metadata.Name, path.Dir(p)))
			}
		}
		out = append(out, c)
	}
	return out, warnings, nil
}

// generatedKey is the key of a generated object.
func generatedKey(f argocd.File) manifest.Key {
	switch o := f.Object.(type) {
	case *argocd.Application:
		return manifest.Key{Group: "argoproj.io", Kind: "Application", Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	case *argocd.AppProject:
		return manifest.Key{Group: "argoproj.io", Kind: "AppProject", Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	}
	return manifest.Key{}
}

// mergeKeys are the keys of a and b.
func mergeKeys[V any](a, b map[string]V) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}
