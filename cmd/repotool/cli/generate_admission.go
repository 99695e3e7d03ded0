package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// admissionIgnores are the ignoreDifferences entries
// argocd.admissionIgnoreDifferences asks generate to write: every target of
// the clusters is rendered (decrypting as render does) and put to its
// cluster's mutating policies (lint.DriftIgnores). Nil when repotool.yaml
// does not ask. A target that fails to render fails generate, which then
// writes nothing: its Applications would lose their entries.
func admissionIgnores(cmd *cobra.Command, env Env, repo *layout.Repo, clusters []string, v *globals) (map[string][]config.IgnoreDifference, error) {
	if !repo.Config.ArgoCD.AdmissionIgnoreDifferences {
		return nil, nil
	}
	var targets []layout.Target
	for _, t := range repo.Targets {
		if len(clusters) == 0 || slices.Contains(clusters, t.Cluster) {
			targets = append(targets, t)
		}
	}
	opts := render.DefaultOptions()
	opts.CacheDir = cacheDir(env, opts.CacheDir)
	r := render.New(repo, opts, append(v.decrypter(false), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)...)
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
	if len(failed) > 0 {
		return nil, reportFailures(cmd.ErrOrStderr(), nil, failed, len(targets), "nothing was generated: argocd.admissionIgnoreDifferences "+
			"needs every target rendered")
	}
	lo := lint.DefaultOptions()
	lo.Render = opts
	ignores, err := lint.DriftIgnores(cmd.Context(), repo, results, lo)
	if err != nil {
		return nil, fmt.Errorf("%w\nnothing was generated", err)
	}
	return ignores, nil
}
