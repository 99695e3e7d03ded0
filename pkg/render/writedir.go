package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/repotool/repotool/internal/fsutil"
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
// rendering is let go once written). The file of a target that fails is
// removed: the folder never mixes this run's renderings with stale ones.
// A file that cannot be written or removed stops the run and is the
// error, as is the end of ctx.
func (r *Renderer) WriteDir(ctx context.Context, dir string, targets []layout.Target) (DirResult, error) {
	var res DirResult
	var werr error
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	fail := func(err error) { werr = err; stop() }
	r.RenderEach(ctx, targets, func(_ int, rd *Result) {
		if werr != nil || ctx.Err() != nil {
			return
		}
		file := filepath.Join(dir, rd.Target.Cluster, rd.Target.Namespace+".yaml")
		if rd.Err != nil {
			res.Failed = append(res.Failed, rd.Err)
			if err := os.Remove(file); err == nil {
				res.Removed = append(res.Removed, file)
			} else if !errors.Is(err, fs.ErrNotExist) {
				fail(fmt.Errorf("remove the stale %s: %w", file, err))
			}
			return
		}
		data, err := rd.Redacted()
		if err != nil {
			fail(err)
			return
		}
		if err := fsutil.WriteFileAtomic(file, data); err != nil {
			fail(fmt.Errorf("write %s: %w", file, err))
			return
		}
		res.Written++
	})
	if werr != nil {
		return res, werr
	}
	return res, ctx.Err()
}
