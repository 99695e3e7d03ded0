package scope

import (
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
)

// Affected returns the targets of base and head that the changed paths
// affect, sorted by name: a target one of whose inputs (layout's
// Repo.Inputs: its folder, its chart's and the charts that chart depends
// on through file://, where their links lead, the repository-wide files)
// holds a changed path at either revision, and every target that exists at
// one revision only. generate writes the same inputs into each
// Application's manifest-generate-paths annotation, so that diff and
// Argo CD agree on what a commit re-renders.
func Affected(base, head *layout.Repo, changed []string) []change.Target {
	byName := map[string]*change.Target{}
	get := func(name string) *change.Target {
		if t, ok := byName[name]; ok {
			return t
		}
		t := &change.Target{Name: name, Files: []string{}}
		byName[name] = t
		return t
	}
	for _, side := range []*layout.Repo{base, head} {
		other := head
		if side == head {
			other = base
		}
		for i := range side.Targets {
			t := &side.Targets[i]
			inputs := side.Inputs(t)
			same := sameApp(t, other)
			var files []string
			for _, p := range changed {
				if same && p == t.App.File {
					continue // another Application of its file changed, not its own
				}
				if slices.ContainsFunc(inputs, func(in string) bool { return layout.InputHolds(in, p) }) {
					files = append(files, p)
				}
			}
			if len(files) > 0 {
				tg := get(t.Name())
				tg.Files = append(tg.Files, files...)
			}
		}
	}
	names := func(r *layout.Repo) map[string]bool {
		m := map[string]bool{}
		for _, t := range r.Targets {
			m[t.Name()] = true
		}
		return m
	}
	inBase, inHead := names(base), names(head)
	for n := range inBase {
		if !inHead[n] {
			get(n).Removed = true
		}
	}
	for n := range inHead {
		if !inBase[n] {
			get(n).Added = true
		}
	}
	var out []change.Target
	for _, t := range byName {
		slices.Sort(t.Files)
		t.Files = slices.Compact(t.Files)
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b change.Target) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sameApp reports whether t is an Application's target that the other
// revision has too, from the same file, saying the same.
func sameApp(t *layout.Target, other *layout.Repo) bool {
	if t.App == nil {
		return false
	}
	o, ok := other.Target(t.Cluster, t.Short())
	return ok && o.App != nil && o.App.File == t.App.File && o.App.Digest != "" && o.App.Digest == t.App.Digest
}

// Touched are the names of the targets of head that the changed paths
// affect (Affected), without the ones the change removes: what lint and
// hydrate render for a change, sorted.
func Touched(base, head *layout.Repo, changed []string) []string {
	out := []string{}
	for _, t := range Affected(base, head, changed) {
		if !t.Removed {
			out = append(out, t.Name)
		}
	}
	return out
}

// Touched is the package's Touched for the sides' change; every target
// of Head when Base could not be loaded (nothing to compare with).
func (s *Sides) Touched() []string {
	if s.Base == nil {
		return nil
	}
	return Touched(s.Base, s.Head, s.Changed)
}

// Checked is what lint checks for the sides' change: Touched, and every
// target of a cluster one of whose admission policy files
// (clusters.<c>.admissionPolicies, at either side) the change holds, as
// the policies apply to each of its objects; nil when Touched is. lint
// widens it further to the clusters whose policies or CRDs its touched
// targets render (lint.Options.Targets).
func (s *Sides) Checked() []string {
	touched := s.Touched()
	if touched == nil {
		return nil
	}
	clusters := map[string]bool{}
	for _, side := range []*layout.Repo{s.Base, s.Head} {
		for c := range side.Config.Clusters {
			for _, at := range side.Config.ClusterAdmissionPolicies(c) {
				if slices.ContainsFunc(s.Changed, func(p string) bool { return layout.InputHolds(path.Clean(at.Path), p) }) {
					clusters[c] = true
				}
			}
		}
	}
	for _, t := range s.Head.Targets {
		if clusters[t.Cluster] {
			touched = append(touched, t.Name())
		}
	}
	slices.Sort(touched)
	return slices.Compact(touched)
}
