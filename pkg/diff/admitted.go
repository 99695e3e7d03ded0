package diff

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Admitted is what a cluster's mutating admission policies make of one
// rendered object (see Options.AsAdmitted).
type Admitted struct {
	// Target is the rendering's target and Object the object's index in
	// its Objects.
	Target string
	Object int
	// Content is the object as admitted; nil when a policy denies it.
	Content map[string]any
	// Changes are one line per policy and binding that changed it:
	// "MutatingAdmissionPolicy P (binding B): /field, ...".
	Changes []string
	// Denied says why a policy denies it, without quoting a value.
	Denied string
}

// Admitter puts one revision's renderings, every target of their
// clusters, to the clusters' admission policies (lint.Admit, which the
// CLI wires in: diff does not evaluate policies itself). It returns the
// objects a policy changes or denies, and an error when a policy cannot be
// applied.
type Admitter func(ctx context.Context, repo *layout.Repo, results []*render.Result) ([]Admitted, error)

// admittedSide is one revision's renderings as admitted, and what the
// policies did to each object, by target and key.
type admittedSide struct {
	results []*render.Result
	notes   map[string]map[manifest.Key][]string
}

// admitSide applies admit to a revision's renderings: to the real objects
// (what the policies did), and to the redacted ones, which are what diff
// shows, so that a policy that copies a secret value copies the
// placeholder there.
func admitSide(ctx context.Context, admit Admitter, repo *layout.Repo, results []*render.Result) (admittedSide, error) {
	out := admittedSide{notes: map[string]map[manifest.Key][]string{}}
	real, err := admit(ctx, repo, results)
	if err != nil {
		return out, err
	}
	safeResults := make([]*render.Result, len(results))
	for i, r := range results {
		safeResults[i] = r
		if r.Err == nil {
			if safeResults[i], err = r.Safe(); err != nil {
				return out, err
			}
		}
	}
	safe, err := admit(ctx, repo, safeResults)
	if err != nil {
		return out, err
	}
	for i, r := range results {
		if r.Err != nil {
			out.results = append(out.results, r)
			continue
		}
		objs, err := admittedObjects(r.Objects, r.Target.Name(), real)
		if err != nil {
			return out, err
		}
		safeObjs, err := admittedObjects(safeResults[i].Objects, r.Target.Name(), safe)
		if err != nil {
			return out, err
		}
		out.results = append(out.results, r.WithObjects(objs, safeObjs))
		for _, a := range real {
			if a.Target != r.Target.Name() {
				continue
			}
			k := keyIn(&r.Objects[a.Object], r.Target.Namespace)
			if out.notes[a.Target] == nil {
				out.notes[a.Target] = map[manifest.Key][]string{}
			}
			out.notes[a.Target][k] = slices.Concat(out.notes[a.Target][k], a.Changes)
			if a.Denied != "" {
				out.notes[a.Target][k] = append(out.notes[a.Target][k], a.Denied)
			}
		}
	}
	return out, nil
}

// admittedObjects are a rendering's objects with those a policy changed
// replaced by the admitted ones, every object written the same way (keys
// in order, as the admitted ones are), so that a comparison shows what
// changed, not how each side was written.
func admittedObjects(objs []manifest.Object, target string, admitted []Admitted) ([]manifest.Object, error) {
	out := slices.Clone(objs)
	for _, a := range admitted {
		if a.Target != target || a.Content == nil {
			continue
		}
		if a.Object < 0 || a.Object >= len(out) {
			return nil, fmt.Errorf("%s: an admitted object (%d) the rendering does not have", target, a.Object)
		}
		out[a.Object].Content = a.Content
	}
	for i := range out {
		o := &out[i]
		if o.Content == nil {
			c, err := manifest.Decode(o.YAML)
			if err != nil {
				return nil, err
			}
			o.Content = c
		}
		data, err := sigsyaml.Marshal(o.Content)
		if err != nil {
			return nil, err
		}
		o.YAML = data
	}
	return out, nil
}

// noteAdmission says, on each change of target from the changes at index
// from on, what the policies did to the object at head and, where that
// differs, at base.
func noteAdmission(changes []change.Change, from int, target string, base, head admittedSide) {
	for i := from; i < len(changes); i++ {
		c := &changes[i]
		h, b := head.notes[target][c.Key], base.notes[target][c.Key]
		for _, n := range h {
			c.Admission = append(c.Admission, "head: "+n)
		}
		if !slices.Equal(b, h) {
			for _, n := range b {
				c.Admission = append(c.Admission, "base: "+n)
			}
		}
	}
}

// clustersOf widens targets to every target of their clusters, at either
// revision: a cluster's mutating policies may change any of its objects,
// so a change to one (or to a policy) is compared in all of them.
func clustersOf(targets []change.Target, base, head *layout.Repo) []change.Target {
	clusters := map[string]bool{}
	listed := map[string]bool{}
	for _, t := range targets {
		c, _, _ := strings.Cut(t.Name, "/")
		clusters[c] = true
		listed[t.Name] = true
	}
	out := slices.Clone(targets)
	inBase := map[string]bool{}
	for _, t := range base.Targets {
		inBase[t.Name()] = true
	}
	inHead := map[string]bool{}
	for _, t := range head.Targets {
		inHead[t.Name()] = true
	}
	for _, side := range []*layout.Repo{base, head} {
		for _, t := range side.Targets {
			if n := t.Name(); clusters[t.Cluster] && !listed[n] {
				listed[n] = true
				out = append(out, change.Target{Name: n, Files: []string{}, Added: !inBase[n], Removed: !inHead[n]})
			}
		}
	}
	slices.SortFunc(out, func(a, b change.Target) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// clusterBatches splits targets (sorted by name) into batches of whole
// clusters, each of at least size targets but for the last, so that every
// batch holds all of a cluster's policies.
func clusterBatches(targets []change.Target, size int) [][]change.Target {
	var out [][]change.Target
	var cur []change.Target
	for i, t := range targets {
		cur = append(cur, t)
		c, _, _ := strings.Cut(t.Name, "/")
		next := ""
		if i+1 < len(targets) {
			next, _, _ = strings.Cut(targets[i+1].Name, "/")
		}
		if next != c && len(cur) >= size || i+1 == len(targets) {
			out = append(out, cur)
			cur = nil
		}
	}
	return out
}
