package cli

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// completion functions for flag values: clusters and namespaces of the
// repository named by the command's argument (or the current folder),
// formats, tiers, severities.

type completeFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

func fixed(values ...string) completeFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRepo loads the layout for completion; nil when it cannot.
func completeRepo(cmd *cobra.Command, args []string) *layout.Repo {
	repo, err := layout.LoadDir(cmd.Context(), repoArg(args), layout.Options{})
	if err != nil {
		return nil
	}
	return repo
}

func completeClusters(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []string
	if repo := completeRepo(cmd, args); repo != nil {
		for _, c := range repo.Clusters {
			out = append(out, c.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeNamespaces offers the namespaces of --cluster, or every one.
func completeNamespaces(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []string
	repo := completeRepo(cmd, args)
	if repo == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cluster, _ := cmd.Flags().GetString("cluster")
	targets := repo.Targets
	if cluster != "" {
		targets = repo.TargetsOf(cluster)
	}
	for _, t := range targets {
		out = append(out, t.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out), cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions registers the value completions of the flags cmd
// has, by name.
func registerCompletions(cmd *cobra.Command, formats []string) {
	funcs := map[string]completeFunc{
		"cluster":   completeClusters,
		"namespace": completeNamespaces,
		"output":    fixed(formats...),
		"tier":      fixed(string(config.ArgoTierCluster), string(config.ArgoTierNamespaces), string(config.ArgoTierApplication)),
		"fail-on":   fixed("error", "warning", "info"),
	}
	for name, f := range funcs {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, f)
		}
	}
}
