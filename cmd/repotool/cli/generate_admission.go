package cli

import (
	"fmt"

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
	opts := render.DefaultOptions()
	supplyFrom(env, &opts)
	r := render.New(repo, opts, append(v.decrypter(false), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)...)
	targets := repo.Targets // generate's clusters: none named is every one
	if len(clusters) > 0 {
		targets = targetsOf(repo, clusters)
	}
	results, err := renderWhole(cmd, r, targets, nil, "nothing was generated: argocd.admissionIgnoreDifferences needs every target rendered")
	if err != nil {
		return nil, err
	}
	ignores, err := lint.DriftIgnores(cmd.Context(), repo, results, admissionOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("%w\nnothing was generated", err)
	}
	return ignores, nil
}
