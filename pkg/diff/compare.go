package diff

import (
	"context"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// CompareTargets renders two targets of one repository (a namespace on
// two clusters) and compares their objects as Run compares two revisions
// of a target: by group, kind, namespace and name, on redacted renderings,
// with changed secret values found in memory and reported by field only.
// In the Result, a is the base and b the head; the changes' target is
// "a -> b".
func CompareTargets(ctx context.Context, repo *layout.Repo, a, b *layout.Target, opts Options) (*change.Result, error) {
	r := render.New(repo, opts.Render, opts.Extra...)
	results := r.RenderAll(ctx, []layout.Target{*a, *b})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := a.Name() + " -> " + b.Name()
	res := &change.Result{Base: a.Name(), Head: b.Name(), BaseSide: a.Cluster, Targets: []change.Target{}, Changes: []change.Change{}, ArgoCD: []change.Change{}}
	// Between clusters every difference is one (no ignorer); the sides are
	// named by their clusters.
	compareTarget(res, pair{name: name, base: results[0], head: results[1], labels: [2]string{a.Cluster, b.Cluster},
		origins: lazyOrigins(ctx, r, r, results[0], results[1], nil)})
	if len(res.Changes) > 0 || len(res.Errors) > 0 {
		res.Targets = append(res.Targets, change.Target{Name: name, Files: []string{}})
	}
	return res, nil
}
