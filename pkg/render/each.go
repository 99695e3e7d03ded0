package render

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/repotool/repotool/pkg/layout"
)

// RenderAll renders targets in parallel (at most Options.Concurrency at
// once) and returns one Result per target in the order given. A target that
// fails has Err set; the others are unaffected.
func (r *Renderer) RenderAll(ctx context.Context, targets []layout.Target) []*Result {
	results := make([]*Result, len(targets))
	r.RenderEach(ctx, targets, func(i int, res *Result) { results[i] = res })
	return results
}

// RenderEach renders targets in parallel, as RenderAll does, and hands
// each Result to fn in target order as soon as it and the ones before it
// are done, from one goroutine at a time: a caller that writes each one
// out and lets it go holds a few renderings at once, not all of them. A
// chart is let go after the last of targets that renders it (a later
// rendering loads it again).
func (r *Renderer) RenderEach(ctx context.Context, targets []layout.Target, fn func(i int, res *Result)) {
	r.renderEach(ctx, targets, identity(len(targets)), fn)
}

// RenderEachByChart is RenderEach in another order: the targets of one
// chart one after another (the charts in the order of their first target,
// each chart's targets in the order given), each Result handed to fn in
// that order with i its index in targets. Every chart is let go after its
// last target, so that a run over many clusters holds a few charts at
// once, not every chart of the repository. For callers whose output does
// not follow the order of the hand-over (files, a sorted report).
func (r *Renderer) RenderEachByChart(ctx context.Context, targets []layout.Target, fn func(i int, res *Result)) {
	r.renderEach(ctx, targets, ByChart(targets), fn)
}

// ByChart is the order RenderEachByChart renders targets in: indexes into
// targets, the targets of one chart together.
func ByChart(targets []layout.Target) []int {
	first := map[string]int{}
	for i, t := range targets {
		if _, ok := first[t.ChartDir]; !ok {
			first[t.ChartDir] = i
		}
	}
	order := identity(len(targets))
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(first[targets[a].ChartDir], first[targets[b].ChartDir])
	})
	return order
}

func identity(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	return order
}

// renderEach renders targets[order[0]], targets[order[1]], ... in
// parallel (at most Options.Concurrency at once, and at most four times
// that ahead of the first not yet handed over), hands each Result to fn in
// that order, and lets each chart go after its last target, each secret
// values file's plaintext after the last target that reads it, and the
// file index's entries as it goes (layout.Files.Forget).
func (r *Renderer) renderEach(ctx context.Context, targets []layout.Target, order []int, fn func(i int, res *Result)) {
	sem := make(chan struct{}, r.opts.Concurrency)
	window := make(chan struct{}, 4*r.opts.Concurrency)
	left := map[string]int{}    // targets still to render, by chart folder
	readers := map[string]int{} // and by the secret values files they read
	for _, t := range targets {
		left[t.ChartDir]++
		for _, v := range t.Values {
			if v.Secret {
				readers[v.Path]++
			}
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, next := 0, 0
	ready := map[int]*Result{}
	for k, i := range order {
		wg.Add(1)
		window <- struct{}{}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res := r.render(ctx, &targets[i])
			mu.Lock()
			defer mu.Unlock()
			if left[targets[i].ChartDir]--; left[targets[i].ChartDir] == 0 {
				r.ReleaseChart(targets[i].ChartDir)
			}
			for _, v := range targets[i].Values {
				if v.Secret {
					if readers[v.Path]--; readers[v.Path] == 0 {
						r.forgetPlain(v.Path)
					}
				}
			}
			if done++; done%forgetEvery == 0 && r.files != nil {
				r.files.Forget() // the entries of the values files read: what they learnt stays
			}
			if r.progress != nil {
				r.progress(done, len(targets))
			}
			ready[k] = res
			for {
				res, ok := ready[next]
				if !ok {
					break
				}
				delete(ready, next)
				fn(order[next], res)
				next++
				<-window
			}
		}()
	}
	wg.Wait()
}

// forgetEvery is how many renderings renderEach makes between two calls
// of the file index's Forget: some 500 entries, where 20,000 targets'
// values files held 40,000 to the end of the run. (A variable for the
// tests.)
var forgetEvery = 256

// forgetPlain lets go of what decrypt kept of the secret values file p: a
// later rendering that reads it decrypts it again.
func (r *Renderer) forgetPlain(p string) {
	r.plainMu.Lock()
	defer r.plainMu.Unlock()
	delete(r.plain, p)
}

// ReleaseChart lets the chart in dir go, with what the Renderer learnt of
// it (its declared values, its templates' text), for a caller done with
// its targets (RenderEach does it after the last): a later rendering, or
// ChartDefaults, loads it again. The parsed templates stay in the engine's
// bounded cache, where another chart with the same templates finds them.
func (r *Renderer) ReleaseChart(dir string) {
	r.supply.Release(dir)
	r.defaults.Forget(dir)
	r.templateText.Forget(dir)
}

// Concurrency is how many targets the Renderer renders at once.
func (r *Renderer) Concurrency() int { return r.opts.Concurrency }
