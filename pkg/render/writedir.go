package render

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/repotool/repotool/internal/outdir"
	"github.com/repotool/repotool/pkg/layout"
)

// DirResult is what WriteDir did.
type DirResult struct {
	// Written counts the files written.
	Written int
	// Failed are the renderings that failed, in target order.
	Failed []error
	// Removed are the files of failed targets that were removed, so that
	// the folder holds no rendering older than this run.
	Removed []string
}

// WriteDir renders targets and writes each rendering, redacted, to
// dir/<cluster>/<namespace>.yaml, atomically, as soon as it is made (a
// rendering is let go once written, and a chart after its last target:
// RenderEachByChart). The file of a target that fails is
// removed: the folder never mixes this run's renderings with stale ones.
// A file that cannot be written or removed stops the run and is the
// error, as is the end of ctx.
func (r *Renderer) WriteDir(ctx context.Context, dir string, targets []layout.Target) (DirResult, error) {
	var res DirResult
	var werr error
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	fail := func(err error) { werr = err; stop() }
	failed, removed := map[int]error{}, map[int]string{} // by target, reported in target order
	r.RenderEachByChart(ctx, targets, func(i int, rd *Result) {
		if werr != nil || ctx.Err() != nil {
			return
		}
		rel := rd.Target.Name() + ".yaml"
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if rd.Err != nil {
			failed[i] = rd.Err
			if gone, err := outdir.Remove(dir, rel); err != nil {
				fail(fmt.Errorf("remove the stale %s: %w", file, err))
			} else if gone {
				removed[i] = file
			}
			return
		}
		data, err := rd.Redacted()
		if err != nil {
			fail(err)
			return
		}
		if _, err := outdir.Write(dir, rel, data); err != nil {
			fail(fmt.Errorf("write %s: %w", file, err))
			return
		}
		res.Written++
	})
	for _, i := range slices.Sorted(maps.Keys(failed)) {
		res.Failed = append(res.Failed, failed[i])
	}
	for _, i := range slices.Sorted(maps.Keys(removed)) {
		res.Removed = append(res.Removed, removed[i])
	}
	if werr != nil {
		return res, werr
	}
	return res, ctx.Err()
}
