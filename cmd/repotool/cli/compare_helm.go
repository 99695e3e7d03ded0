package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// compareHelms is compare's --helm: one Helm to render with, or "v3,v4"
// to compare the two.
type compareHelms struct {
	o    *render.Options
	both bool
}

func (h *compareHelms) String() string {
	if h.both {
		return "v3,v4"
	}
	return h.o.Helm
}

func (h *compareHelms) Set(v string) error {
	if parts := strings.Split(v, ","); len(parts) == 2 {
		slices.Sort(parts)
		if parts[0] != render.HelmV3 || parts[1] != render.HelmV4 {
			return fmt.Errorf("%q: compare the two Helms with v3,v4", v)
		}
		h.both = true
		return nil
	}
	if err := config.CheckHelmVersion(v); err != nil {
		return err
	}
	h.o.Helm = v
	return nil
}

func (h *compareHelms) Type() string { return "string" }

func addCompareHelmFlag(fl *pflag.FlagSet, h *compareHelms) {
	fl.Var(h, "helm", "render as this Helm's helm template does: v3 or v4 (default: repotool.yaml's render.helm, else v3); v3,v4 compares what every "+
		"target (or -n NAMESPACE, or the clusters given) renders under each")
}

// runCompareHelm is compare --helm v3,v4: every target of the scope
// rendered as Helm 3 and as Helm 4 and compared, in diff's formats.
func runCompareHelm(
	cmd *cobra.Command,
	env Env,
	v *globals,
	args []string,
	namespace, format, color string,
	opts *render.Options,
	extra []render.Option,
) error {
	f, fo, err := diffFormat(cmd, env, format, color)
	if err != nil {
		return err
	}
	repoDir, clusters := ".", []string(nil)
	if len(args) > 0 {
		repoDir, clusters = args[0], args[1:]
	}
	repo, err := loadRepo(cmd, repoDir, opts)
	if err != nil {
		return err
	}
	var targets []layout.Target
	for _, t := range repo.Targets {
		if (namespace == "" || t.Namespace == namespace) && (len(clusters) == 0 || slices.Contains(clusters, t.Cluster)) {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return usageErr(notFound(repo, fmt.Sprintf("no target of namespace %q on clusters %v", namespace, clusters)))
	}
	supplyFrom(env, opts)
	res, err := diff.CompareHelm(
		cmd.Context(),
		repo,
		targets,
		diff.Options{Render: *opts, Extra: append(extra, v.renderOptions(cmd.ErrOrStderr(), "rendering")...)},
	)
	if err != nil {
		return err
	}
	if f.Name() == "text" && len(res.Targets) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "every target renders the same objects under Helm 3 and Helm 4 (%d targets)\n", len(targets))
	} else if err := f.Write(cmd.OutOrStdout(), res, fo); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		return &exitError{Code: ExitError, Err: fmt.Errorf("%d target(s) could not be rendered under one of the Helms", len(res.Errors))}
	}
	return nil
}
