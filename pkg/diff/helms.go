package diff

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// The labels of CompareHelm's sides.
const (
	Helm3Side = "Helm 3"
	Helm4Side = "Helm 4"
)

// CompareHelm renders targets of repo as Helm 3 and as Helm 4 render
// them (opts.Render's Helm is replaced) and compares their objects as Run
// compares two revisions, Helm 3 as the base: what a team's move to Helm
// 4 (Argo CD 3.5 and later render native Helm sources with it) changes,
// target by target. Where the cause of a change is known it is named
// (change.Change.Cause): a cluster version with a vendor suffix, which
// Helm 4 keeps in .Capabilities; a values file of several YAML documents,
// which Helm 4 merges; .Capabilities.HelmVersion. A target whose objects
// come in another order (Helm 4 sorts webhook configurations right after
// APIService) is a warning.
func CompareHelm(ctx context.Context, repo *layout.Repo, targets []layout.Target, opts Options) (*change.Result, error) {
	res := &change.Result{Base: Helm3Side, Head: Helm4Side, Targets: []change.Target{}, Changes: []change.Change{}, ArgoCD: []change.Change{}}
	o3, o4 := opts.Render, opts.Render
	o3.Helm, o4.Helm = render.HelmV3, render.HelmV4
	r3 := render.New(repo, o3, opts.Extra...)
	r4 := render.New(repo, o4, opts.Extra...)
	results3 := r3.RenderAll(ctx, targets)
	results4 := r4.RenderAll(ctx, targets)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, t := range targets {
		changes, errs := len(res.Changes), len(res.Errors)
		compareTarget(res, pair{name: t.Name(), base: results3[i], head: results4[i], labels: revisions})
		if len(res.Changes) > changes {
			multi := multiDocumentValues(repo, &t)
			for j := changes; j < len(res.Changes); j++ {
				res.Changes[j].Cause = helmCause(&t, &res.Changes[j], multi)
			}
		}
		w := orderWarning(t.Name(), results3[i], results4[i])
		if w != "" {
			res.Warnings = append(res.Warnings, w)
		}
		if len(res.Changes) > changes || len(res.Errors) > errs || w != "" {
			res.Targets = append(res.Targets, change.Target{Name: t.Name(), Files: []string{}})
		}
	}
	return res, nil
}

// helmCause is the known cause of a change between the Helms, "" when
// none is known; multi are the target's values files of several
// documents.
func helmCause(t *layout.Target, c *change.Change, multi []string) string {
	var causes []string
	if kv := t.KubeVersion; strings.ContainsAny(strings.TrimPrefix(kv, "v"), "-+") && strings.Contains(c.Diff, kv) {
		causes = append(causes, fmt.Sprintf("the cluster's kubeVersion %s has a vendor suffix, which Helm 4 keeps in .Capabilities.KubeVersion.Version (Helm "+
			"3 prints the version without it)", kv))
	}
	if strings.Contains(c.Diff, "v3.22") || strings.Contains(c.Diff, "v4.3") {
		causes = append(causes, ".Capabilities.HelmVersion: v3.22 under Helm 3, v4.3 under Helm 4")
	}
	if len(multi) > 0 {
		causes = append(
			causes,
			fmt.Sprintf("values files of several YAML documents, which Helm 4 merges and Helm 3 reads the first of: %s", strings.Join(multi, ", ")),
		)
	}
	return strings.Join(causes, "; ")
}

// multiDocumentValues are t's plain values files, and its chart's
// values.yaml, that hold several YAML documents (Helm 4 merges them,
// Helm 3 reads the first).
func multiDocumentValues(repo *layout.Repo, t *layout.Target) []string {
	var files []string
	for _, v := range t.Values {
		if !v.Secret {
			files = append(files, v.Path)
		}
	}
	files = append(files, t.ChartDir+"/values.yaml")
	var multi []string
	for _, p := range files {
		if data, err := repo.Files.Get(p).Data(); err == nil {
			if n, err := helmvalues.Count(data); err == nil && n > 1 {
				multi = append(multi, p)
			}
		}
	}
	return multi
}

// orderWarning says when the two renderings hold the same objects in
// another order, "" otherwise.
func orderWarning(name string, a, b *render.Result) string {
	if a == nil || b == nil || a.Err != nil || b.Err != nil {
		return ""
	}
	keys := func(r *render.Result) []manifest.Key {
		var out []manifest.Key
		for i := range r.Objects {
			out = append(out, keyIn(&r.Objects[i], r.Target.Namespace))
		}
		return out
	}
	ka, kb := keys(a), keys(b)
	if slices.Equal(ka, kb) {
		return ""
	}
	sa, sb := slices.Clone(ka), slices.Clone(kb)
	slices.SortFunc(sa, manifest.Key.Compare)
	slices.SortFunc(sb, manifest.Key.Compare)
	if !slices.Equal(sa, sb) {
		return "" // objects added or removed: shown as changes
	}
	return fmt.Sprintf(
		"%s: Helm 4 renders the objects in another order, which is the order a sync applies them in (Helm 4 sorts webhook configurations right after "+
			"APIService, before the kinds it does not know)",
		name,
	)
}
