package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// printAdmitted prints the selected targets as the API server would store
// their objects: every target of their clusters is rendered (the
// policies may be deployed by any of them), lint.Admit applies the
// clusters' mutating policies, and each object a policy changes is printed
// as changed, after comments that name the policies and the fields. All or
// nothing, as printAll: a target of the clusters that fails to render, or
// a policy that cannot be applied, fails the run.
func printAdmitted(cmd *cobra.Command, repo *layout.Repo, r *render.Renderer, sel selection, f *renderFlags) error {
	var clusterTargets []layout.Target
	for _, t := range repo.Targets {
		if slices.ContainsFunc(sel.targets, func(s layout.Target) bool { return s.Cluster == t.Cluster }) {
			clusterTargets = append(clusterTargets, t)
		}
	}
	results := r.RenderAll(cmd.Context(), clusterTargets)
	if err := cmd.Context().Err(); err != nil {
		return err
	}
	var failed []error
	for _, res := range results {
		if res.Err != nil {
			failed = append(failed, res.Err)
		}
	}
	if len(failed) > 0 || sel.outside != nil {
		return reportFailures(cmd.ErrOrStderr(), sel.outside, failed, len(clusterTargets), "nothing was written to standard output (every "+
			"target of the cluster is rendered for its admission policies)")
	}
	opts := lint.DefaultOptions()
	opts.Render = f.opts
	admitted, err := lint.Admit(cmd.Context(), repo, results, opts)
	if err != nil {
		return err
	}
	byTarget := map[string]map[int]lint.Admitted{}
	for _, a := range admitted {
		if byTarget[a.Target] == nil {
			byTarget[a.Target] = map[int]lint.Admitted{}
		}
		byTarget[a.Target][a.Object] = a
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	for _, res := range results {
		if !slices.ContainsFunc(sel.targets, func(s layout.Target) bool { return s.Name() == res.Target.Name() }) {
			continue
		}
		data, err := admittedManifest(res, byTarget[res.Target.Name()])
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return w.Flush()
}

// admittedManifest is a rendering's manifest with each admitted object's
// document replaced by the admitted object, after comments that say what
// changed it (or denies it).
func admittedManifest(res *render.Result, admitted map[int]lint.Admitted) ([]byte, error) {
	var out bytes.Buffer
	rest := res.Manifest
	for i := range res.Objects {
		o := &res.Objects[i]
		a, ok := admitted[i]
		if !ok {
			continue
		}
		at := bytes.Index(rest, o.YAML)
		if at < 0 {
			return nil, fmt.Errorf("%s: object %s is not in the rendering's manifest", res.Target.Name(), o.ID())
		}
		out.Write(rest[:at])
		rest = rest[at+len(o.YAML):]
		if a.Denied != "" {
			fmt.Fprintf(&out, "# Not admitted: %s\n", a.Denied)
			out.Write(o.YAML)
			continue
		}
		for _, c := range a.Changes {
			fmt.Fprintf(&out, "# Admitted: %s\n", c)
		}
		data, err := sigsyaml.Marshal(a.Content)
		if err != nil {
			return nil, err
		}
		out.Write(data)
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// admitter is lint.Admit for diff --as-admitted, with renderings made with
// opts.
func admitter(opts render.Options) diff.Admitter {
	return func(ctx context.Context, repo *layout.Repo, results []*render.Result) ([]diff.Admitted, error) {
		lo := lint.DefaultOptions()
		lo.Render = opts
		admitted, err := lint.Admit(ctx, repo, results, lo)
		if err != nil {
			return nil, err
		}
		out := make([]diff.Admitted, len(admitted))
		for i, a := range admitted {
			out[i] = diff.Admitted{Target: a.Target, Object: a.Object, Content: a.Content, Denied: a.Denied}
			for _, c := range a.Changes {
				out[i].Changes = append(out[i].Changes, c.String())
			}
		}
		return out, nil
	}
}
