package render_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// handedOver runs each (a Renderer's RenderEach or RenderEachByChart,
// three at once) over the fixture and returns the order it handed the
// targets over in, each required to be RenderAll's rendering, the file
// index's entries forgotten after every rendering (RenderAll's never).
func handedOver(t *testing.T, each func(*render.Renderer) func(context.Context, []layout.Target, func(int, *render.Result))) (*layout.Repo, []int) {
	t.Helper()
	useTestKey(t)
	opts := render.DefaultOptions()
	opts.Concurrency = 3
	restore := render.SetForgetEvery(1 << 30)
	base := loadRepo(t, fixture)
	all := render.New(base, opts).RenderAll(context.Background(), base.Targets)
	restore()
	defer render.SetForgetEvery(1)()
	repo := loadRepo(t, fixture)
	var got []int
	each(render.New(repo, opts))(context.Background(), repo.Targets, func(i int, res *render.Result) {
		got = append(got, i)
		if res.Target.Name() != repo.Targets[i].Name() || !bytes.Equal(res.Manifest, all[i].Manifest) || (res.Err == nil) != (all[i].Err == nil) {
			t.Errorf("target %d: %s differs from RenderAll's", i, res.Target.Name())
		}
	})
	return repo, got
}

// TestRenderEach hands every target over once, in target order, with the
// same rendering RenderAll makes, however the renders interleave.
func TestRenderEach(t *testing.T) {
	repo, got := handedOver(t, func(r *render.Renderer) func(context.Context, []layout.Target, func(int, *render.Result)) {
		return r.RenderEach
	})
	if len(got) != len(repo.Targets) {
		t.Fatalf("%d of %d targets handed over", len(got), len(repo.Targets))
	}
	for i, g := range got {
		if g != i {
			t.Fatalf("handed over in the order %v", got)
		}
	}
}

// TestRenderEachByChart hands every target over once, each chart's
// targets one after another, with the rendering RenderAll makes; and
// every chart is let go after its last target: a rendering after the run
// reads the chart again (here, changed on disk in between).
func TestRenderEachByChart(t *testing.T) {
	repo, got := handedOver(t, func(r *render.Renderer) func(context.Context, []layout.Target, func(int, *render.Result)) {
		return r.RenderEachByChart
	})
	if want := render.ByChart(repo.Targets); !slices.Equal(got, want) {
		t.Fatalf("handed over in the order %v, want %v", got, want)
	}
	done := map[string]bool{}
	for k, i := range got {
		dir := repo.Targets[i].ChartDir
		if done[dir] && repo.Targets[got[k-1]].ChartDir != dir {
			t.Fatalf("chart %s's targets are not together: %v", dir, got)
		}
		done[dir] = true
	}
	if len(done) < 3 {
		t.Fatalf("the fixture has %d charts: the order is not tried", len(done))
	}

	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"namespaces/app/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n",
		"clusters/dev/app/dev-values-a.yaml":     "a: 1\n",
		"clusters/prod/app/prod-values-a.yaml":   "a: 1\n",
		"namespaces/other/Chart.yaml":            "apiVersion: v2\nname: other\nversion: 1.0.0\n",
		"namespaces/other/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
		"clusters/dev/other/dev-values-a.yaml":   "a: 1\n",
		"clusters/prod/other/prod-values-a.yaml": "a: 1\n",
	})
	small := loadRepo(t, dir)
	r := render.New(small, render.DefaultOptions())
	for n, each := range []func(context.Context, []layout.Target, func(int, *render.Result)){r.RenderEach, r.RenderEachByChart} {
		each(context.Background(), small.Targets, func(int, *render.Result) {})
		after := fmt.Sprintf("name: after-%d", n)
		testtool.WriteFiles(t, dir, map[string]string{"namespaces/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  " + after + "\n"})
		res, err := r.Render(context.Background(), &small.Targets[0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(res.Manifest, []byte(after)) {
			t.Errorf("the chart was kept after the run's last target:\n%s", res.Manifest)
		}
	}
}
