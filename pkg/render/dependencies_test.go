package render_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/repotool/repotool/pkg/render"
)

// TestDependencies: deps update resolves a constraint to the newest
// version the chart repository serves, verified against its index, and
// writes the Chart.lock helm would (rendering accepts it) and a pin; deps
// build then fetches what the lock pins, and a second run changes nothing;
// offline, the pinned cache serves it.
func TestDependencies(t *testing.T) {
	cr := newChartRepo(t, "")
	url := cr.URL + "/stable"
	opts := render.DefaultOptions()
	opts.CacheDir = t.TempDir()
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	files := remoteRepoFiles(url, "~7.2.0", nil)
	repo := mapRepo(t, files)

	got, err := render.New(repo, opts).Dependencies(context.Background(), render.DependenciesOptions{Update: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := render.Dependency{Chart: "namespaces/app", Name: "redis", Repository: url, Constraint: "~7.2.0", Version: "7.2.4", Digest: "sha256:" + cr.digest}
	if len(got.Dependencies) != 1 || got.Dependencies[0] != want {
		t.Fatalf("dependencies = %+v, want %+v", got.Dependencies, want)
	}
	lock := string(got.Locks["namespaces/app/Chart.lock"])
	for _, s := range []string{"name: redis", "version: 7.2.4", "repository: " + url, "digest: sha256:", "generated: \"2026-11-27T08:00:00Z\""} {
		if !strings.Contains(lock, s) {
			t.Errorf("Chart.lock lacks %q:\n%s", s, lock)
		}
	}
	pin := url + " redis 7.2.4 sha256:" + cr.digest
	if !strings.Contains(string(got.Sums), pin+"\n") {
		t.Errorf("repotool.sum = %q, want the pin %q", got.Sums, pin)
	}

	// With the lock and the pin written, rendering accepts the lock, and
	// build fetches what it pins and writes nothing.
	files["namespaces/app/Chart.lock"] = lock
	files["repotool.sum"] = string(got.Sums)
	locked := mapRepo(t, files)
	if _, err := render.New(locked, opts).Render(context.Background(), &locked.Targets[0]); err != nil {
		t.Fatalf("render with the lock deps update wrote: %v", err)
	}
	for _, update := range []bool{false, true} {
		again, err := render.New(locked, opts).Dependencies(context.Background(), render.DependenciesOptions{Update: update, Now: now.Add(time.Hour)})
		if err != nil || len(again.Locks) != 0 || again.Sums != nil || again.Dependencies[0].Version != "7.2.4" {
			t.Errorf("update=%v, a second run: %+v, %v", update, again, err)
		}
	}
	offline := opts
	offline.Offline = true
	cr.requests.Store(0)
	if _, err := render.New(locked, offline).Dependencies(context.Background(), render.DependenciesOptions{}); err != nil || cr.requests.Load() != 0 {
		t.Errorf("offline build from the pinned cache: %v, %d requests", err, cr.requests.Load())
	}
}

// TestDependenciesErrors: a chart whose dependencies cannot be fetched is
// an error naming it, with a fix that names repotool deps; the other
// charts are fetched all the same.
func TestDependenciesErrors(t *testing.T) {
	cr := newChartRepo(t, "")
	opts := render.DefaultOptions()
	opts.CacheDir = t.TempDir()
	files := remoteRepoFiles(cr.URL+"/stable", "7.2.4", map[string]string{
		"namespaces/bad/Chart.yaml":     appChart + "dependencies:\n  - name: redis\n    version: 9.9.9\n    repository: " + cr.URL + "/stable\n",
		"clusters/c1/bad/values-a.yaml": "a: 1\n",
	})
	got, err := render.New(mapRepo(t, files), opts).Dependencies(context.Background(), render.DependenciesOptions{})
	if err == nil || !strings.Contains(err.Error(), "namespaces/bad/Chart.yaml: dependency \"redis\"") {
		t.Errorf("err = %v, want one about namespaces/bad", err)
	}
	if len(got.Dependencies) != 1 || got.Dependencies[0].Chart != "namespaces/app" {
		t.Errorf("the good chart's dependencies: %+v", got.Dependencies)
	}
	offline := opts
	offline.Offline, offline.CacheDir = true, t.TempDir()
	_, err = render.New(mapRepo(t, remoteRepoFiles(cr.URL+"/stable", "7.2.4", nil)), offline).Dependencies(context.Background(), render.DependenciesOptions{})
	if err == nil || !strings.Contains(err.Error(), "repotool deps build") || strings.Contains(err.Error(), "helm dependency") {
		t.Errorf("offline with nothing cached: %v", err)
	}
}
