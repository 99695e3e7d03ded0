package render_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/repotool/repotool/pkg/render"
)

// TestRenderEach hands every target over once, in target order, with the
// same rendering RenderAll makes, however the renders interleave.
func TestRenderEach(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	opts := render.DefaultOptions()
	opts.Concurrency = 3
	all := render.New(repo, opts).RenderAll(context.Background(), repo.Targets)
	var got []int
	render.New(repo, opts).RenderEach(context.Background(), repo.Targets, func(i int, res *render.Result) {
		got = append(got, i)
		if res.Target.Name() != repo.Targets[i].Name() || !bytes.Equal(res.Manifest, all[i].Manifest) || (res.Err == nil) != (all[i].Err == nil) {
			t.Errorf("target %d: %s differs from RenderAll's", i, res.Target.Name())
		}
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
