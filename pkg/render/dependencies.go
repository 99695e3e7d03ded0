package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render/internal/charts"
)

// Dependency is one dependency of a chart, as Dependencies fetched it.
type Dependency struct {
	// Chart is the depending chart's folder.
	Chart string `json:"chart"`
	Name  string `json:"name"`
	// Repository is the dependency's repository, without the user
	// information its URL may hold (charts.ShownURL).
	Repository string `json:"repository"`
	// Constraint is the version Chart.yaml asks; Version the one fetched.
	Constraint string `json:"constraint,omitempty"`
	Version    string `json:"version"`
	// Digest is the fetched archive's (sha256:<hex>); "" for a file:// or
	// vendored dependency, which is not fetched.
	Digest   string `json:"digest,omitempty"`
	Vendored bool   `json:"vendored,omitempty"`
}

// Dependencies is what `repotool deps` did: the charts' dependencies, and
// the repository files that change.
type Dependencies struct {
	Dependencies []Dependency
	// Locks are the Chart.lock files Update writes, by path, only those
	// whose dependencies change.
	Locks map[string][]byte
	// Sums is the new layout.SumsFile, pinning every archive fetched; nil
	// when it does not change.
	Sums []byte
}

// DependenciesOptions configure Renderer.Dependencies.
type DependenciesOptions struct {
	// Charts are the chart folders; empty: every chart a namespace
	// deploys, and the file:// charts they depend on.
	Charts []string
	// Update resolves the newest versions Chart.yaml's constraints allow,
	// Chart.lock ignored, and writes Chart.lock (helm dependency update);
	// otherwise the versions Chart.lock pins are fetched (helm dependency
	// build).
	Update bool
	// Now is the time a Chart.lock written is generated at (zero: now).
	Now time.Time
}

// Dependencies fetches the remote dependencies of charts into the
// renderer's cache, verified as rendering verifies them (the chart
// repository's index online, layout.SumsFile offline), so that later runs,
// offline ones too, find them; it pins every archive fetched in
// layout.SumsFile. A chart whose dependencies cannot be fetched is an
// error naming it; the others are fetched all the same.
func (r *Renderer) Dependencies(ctx context.Context, opts DependenciesOptions) (*Dependencies, error) {
	dirs := opts.Charts
	if len(dirs) == 0 {
		dirs = r.repo.Charts()
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now().UTC()
	}
	out := &Dependencies{Locks: map[string][]byte{}}
	var errs []error
	for _, dir := range dirs {
		fetched, lock, err := r.supply.Fetch(ctx, dir, opts.Update)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range fetched {
			out.Dependencies = append(out.Dependencies, Dependency{Chart: dir, Name: f.Name, Repository: charts.ShownURL(f.Repository), Constraint: f.Constraint,
				Version: f.Version, Digest: f.Digest, Vendored: f.Vendored})
		}
		if lock != nil {
			data, changed, err := r.newLock(dir, lock, now)
			if err != nil {
				errs = append(errs, err)
			} else if changed {
				out.Locks[path.Join(dir, "Chart.lock")] = data
			}
		}
	}
	sums, err := r.newSums(out.Dependencies)
	if err != nil {
		errs = append(errs, err)
	}
	out.Sums = sums
	return out, errors.Join(errs...)
}

// newLock is dir's Chart.lock recording lock, generated at now, and
// whether it changes the one there (the time of an unchanged lock is
// kept, so that a second update writes nothing).
func (r *Renderer) newLock(dir string, lock *chart.Lock, now time.Time) ([]byte, bool, error) {
	file := path.Join(dir, "Chart.lock")
	if data, err := r.files.Get(file).Data(); err == nil {
		old := &chart.Lock{}
		if yaml.Unmarshal(data, old) == nil && old.Digest == lock.Digest && slices.EqualFunc(old.Dependencies, lock.Dependencies, sameDependency) {
			return data, false, nil
		}
	}
	lock.Generated = now
	data, err := charts.LockYAML(lock)
	return data, true, err
}

func sameDependency(a, b *chart.Dependency) bool {
	return a.Name == b.Name && a.Repository == b.Repository && a.Version == b.Version
}

// newSums is layout.SumsFile with a pin for every archive fetched: its
// lines kept in their order, a pin of another digest for the same archive
// replaced, new pins added in order; nil when nothing changes.
func (r *Renderer) newSums(deps []Dependency) ([]byte, error) {
	old, err := r.files.Get(layout.SumsFile).Data()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", layout.SumsFile, err)
	}
	want := map[string]string{}
	for _, d := range deps {
		if d.Digest != "" {
			want[charts.SumKey(d.Repository, d.Name, d.Version)] = d.Digest
		}
	}
	var lines []string
	if len(old) > 0 {
		lines = strings.Split(strings.TrimSuffix(string(old), "\n"), "\n")
	}
	changed := false
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 || strings.HasPrefix(line, "#") {
			continue
		}
		key := charts.SumKey(f[0], f[1], f[2]) // as rendering reads the pin
		if d, ok := want[key]; ok {
			if d != f[3] {
				lines[i], changed = key+" "+d, true
			}
			delete(want, key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		lines, changed = append(lines, key+" "+want[key]), true
	}
	if !changed {
		return nil, nil
	}
	if len(old) == 0 {
		lines = append([]string{"# Digests of the remote chart archives repotool renders with (repotool deps writes them; docs/render.md)."}, lines...)
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}
