package cli

import (
	"bufio"
	"context"
	"slices"

	"github.com/spf13/cobra"

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
	var clusters []string
	for _, t := range sel.targets {
		clusters = append(clusters, t.Cluster)
	}
	results, err := renderWhole(cmd, r, targetsOf(repo, clusters), sel.outside,
		"nothing was written to standard output (every target of the cluster is rendered for its admission policies)")
	if err != nil {
		return err
	}
	admitted, err := lint.Admit(cmd.Context(), repo, results, admissionOptions(f.opts))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	for _, res := range results {
		if !slices.ContainsFunc(sel.targets, func(s layout.Target) bool { return s.Name() == res.Target.Name() }) {
			continue
		}
		data, err := lint.AdmittedManifest(res, admitted)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return w.Flush()
}

// admitter is lint.Admit for diff --as-admitted, with renderings made with
// opts.
func admitter(opts render.Options) diff.Admitter {
	return func(ctx context.Context, repo *layout.Repo, results []*render.Result) ([]diff.Admitted, error) {
		admitted, err := lint.Admit(ctx, repo, results, admissionOptions(opts))
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

// admissionOptions are lint's options for putting renderings made with
// opts to their clusters' policies.
func admissionOptions(opts render.Options) lint.Options {
	lo := lint.DefaultOptions()
	lo.Render = opts
	return lo
}

// targetsOf are repo's targets of clusters, in repo's order.
func targetsOf(repo *layout.Repo, clusters []string) []layout.Target {
	var out []layout.Target
	for _, t := range repo.Targets {
		if slices.Contains(clusters, t.Cluster) {
			out = append(out, t)
		}
	}
	return out
}

// renderWhole renders targets, all or nothing, for the commands that put
// them to their clusters' policies: a target that fails, or the layout's
// errors outside any target (outside), fail the run with note.
func renderWhole(cmd *cobra.Command, r *render.Renderer, targets []layout.Target, outside error, note string) ([]*render.Result, error) {
	results := r.RenderAll(cmd.Context(), targets)
	if err := cmd.Context().Err(); err != nil {
		return nil, err
	}
	var failed []error
	for _, res := range results {
		if res.Err != nil {
			failed = append(failed, res.Err)
		}
	}
	if len(failed) > 0 || outside != nil {
		return nil, reportFailures(cmd.ErrOrStderr(), outside, failed, len(targets), note)
	}
	return results, nil
}
