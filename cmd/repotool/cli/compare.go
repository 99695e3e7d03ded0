package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/values"
)

func newCompareCmd(env Env, v *globals) *cobra.Command {
	fl := &compareFlags{opts: render.DefaultOptions()}
	helms := &compareHelms{o: &fl.opts}
	cmd := &cobra.Command{
		Use:   "compare [REPO] -n NAMESPACE CLUSTER1 CLUSTER2 | compare [REPO] --helm v3,v4 [-n NAMESPACE] [CLUSTER...]",
		Short: "Show how a namespace differs between clusters: its values key by key, and its rendered objects",
		Long:  compareLong,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if helms.both {
				return runCompareHelm(cmd, env, v, args, fl.namespace, fl.format, fl.color, &fl.opts, v.decrypter(fl.noDecrypt))
			}
			return runCompare(cmd, env, v, args, fl)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&fl.namespace, "namespace", "n", "", "the namespace to compare (required, but with --all-clusters: every namespace on two clusters or more)")
	fs.StringVar(&fl.clusters, "clusters", "", "the two clusters to compare, C1,C2 (or give them as arguments)")
	fs.BoolVar(&fl.all, "all-clusters", false, "compare the values on every cluster that deploys the namespace")
	fs.StringVarP(&fl.format, "output", "o", "text", "output format: "+strings.Join(output.CompareFormats(), "|"))
	fs.StringVar(&fl.color, "color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set)|always|never")
	fs.BoolVar(&fl.noDecrypt, "no-decrypt", false, "compare the rendered objects with typed placeholders for secret values")
	addDependencyFlags(fs, &fl.opts)
	addLimitFlags(fs, &fl.opts)
	addCompareHelmFlag(fs, helms)
	return cmd
}

// compareFlags are compare's flags.
type compareFlags struct {
	namespace, format, color, clusters string
	all, noDecrypt                     bool
	opts                               render.Options
}

// compareLong is compare's help.
const compareLong = `compare shows how one namespace's targets differ between clusters, the
drift the layout is meant to keep small: the effective values that differ
(each cluster's value and the file and line it comes from, as repotool values
--origin shows them) and, for two clusters, the rendered objects, compared as
repotool diff compares two revisions (the first cluster as base). Clusters are
given as arguments after REPO, or with --clusters C1,C2; --all-clusters
compares the values of every cluster that deploys the namespace (a matrix of
the keys that differ; the objects too when there are only two), and, without
--namespace, does so for every namespace deployed on two clusters or more, one
after the other (-o json: one document per namespace, a JSON stream).

Secret values are never printed. In the values, a value from a secret file is
shown as "(secret: FILE:LINE)" and compared by presence only (secret files
are not decrypted for that part); the rendered objects are compared with the
real secret values in memory, and a Secret whose value differs is named by
its field only. --no-decrypt compares the objects with placeholders instead.

--helm v3,v4 compares instead what every target renders under Helm 3 and
under Helm 4 (Argo CD 3.5 and later render native Helm sources with Helm 4):
the objects that differ, as diff shows them, with the cause where it is
known (a cluster version with a vendor suffix, a values file of several
documents, .Capabilities.HelmVersion), and a warning for a target whose
objects come in another order. -n NAMESPACE and clusters given after REPO
narrow it. Text, JSON and markdown, as diff's.

Exit status: 0, or 2 on a usage error, an unknown cluster or namespace, or a
target that cannot be rendered.`

// runCompare compares a namespace between clusters (or every shared
// namespace, --all-clusters).
func runCompare(cmd *cobra.Command, env Env, v *globals, args []string, fl *compareFlags) error {
	f, err := output.NewCompareFormatter(fl.format)
	if err != nil {
		return usageErr(err)
	}
	fo, err := diffOptions(cmd, env, fl.color)
	if err != nil {
		return usageErr(err)
	}
	repoDir, clusters, err := compareArgs(args, fl.clusters, fl.all)
	if err != nil {
		return usageErr(err)
	}
	if fl.namespace == "" && !fl.all {
		return usageErr(fmt.Errorf("compare needs --namespace (or --all-clusters, for every namespace deployed on two clusters or more)"))
	}
	repo, err := loadRepo(cmd, repoDir, &fl.opts)
	if err != nil {
		return err
	}
	namespaces := []string{fl.namespace}
	if fl.namespace == "" {
		if namespaces = sharedNamespaces(repo); len(namespaces) == 0 {
			return usageErr(errors.New("no namespace is deployed on two clusters or more: nothing to compare"))
		}
	}
	supplyFrom(env, &fl.opts)
	extra := append(v.decrypter(fl.noDecrypt), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)
	r := render.New(repo, fl.opts, extra...)
	failed := 0
	for i, ns := range namespaces {
		if i > 0 && f.Name() != "json" {
			fmt.Fprintln(cmd.OutOrStdout()) // a blank line between namespaces
		}
		targets, err := compareTargets(repo, ns, clusters, fl.all)
		if err != nil {
			return usageErr(err)
		}
		c, err := compareNamespace(cmd, r, repo, ns, targets, diff.Options{Render: fl.opts, Extra: extra})
		if err != nil {
			return err
		}
		if c.Objects != nil {
			c.Objects.NotDecrypted = fl.noDecrypt
			failed += len(c.Objects.Errors)
		}
		if err := f.Write(cmd.OutOrStdout(), c, fo); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &exitError{Code: ExitError, Err: fmt.Errorf("%d target(s) could not be rendered", failed)}
	}
	return nil
}

// compareArgs reads compare's arguments: [REPO] [C1 C2], or the clusters
// from --clusters, or none with --all-clusters.
func compareArgs(args []string, list string, all bool) (string, []string, error) {
	if len(args) > 3 {
		return "", nil, fmt.Errorf("too many arguments: compare [REPO] -n NAMESPACE C1 C2")
	}
	repoDir := "."
	switch len(args) {
	case 1:
		repoDir = args[0]
	case 2:
		if list != "" || all {
			return "", nil, fmt.Errorf("the clusters are given twice")
		}
		return ".", args, nil
	case 3:
		if list != "" || all {
			return "", nil, fmt.Errorf("the clusters are given twice")
		}
		return args[0], args[1:], nil
	}
	switch {
	case all && list != "":
		return "", nil, fmt.Errorf("--all-clusters and --clusters both say which clusters: give one")
	case all:
		return repoDir, nil, nil
	case list != "":
		cl := strings.Split(list, ",")
		if len(cl) != 2 {
			return "", nil, fmt.Errorf("--clusters %q: give two clusters, C1,C2", list)
		}
		return repoDir, cl, nil
	}
	return "", nil, fmt.Errorf("give two clusters (compare -n NAMESPACE C1 C2, or --clusters C1,C2), or --all-clusters")
}

// compareNamespace compares namespace's targets: their effective values,
// and, for two, their rendered objects.
func compareNamespace(
	cmd *cobra.Command,
	r *render.Renderer,
	repo *layout.Repo,
	namespace string,
	targets []*layout.Target,
	opts diff.Options,
) (*change.Comparison, error) {
	c := &change.Comparison{Namespace: namespace}
	var effs []*values.Effective
	for _, t := range targets {
		eff, err := r.EffectiveValues(cmd.Context(), t)
		if err != nil {
			return nil, usageErr(err)
		}
		c.Clusters = append(c.Clusters, t.Cluster)
		effs = append(effs, eff)
	}
	c.Values = values.Compare(effs)
	if len(targets) == 2 {
		var err error
		if c.Objects, err = diff.CompareTargets(cmd.Context(), repo, targets[0], targets[1], opts); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// sharedNamespaces are the targets' names within their clusters (a
// folder target's namespace, an Application's name) that two clusters or
// more have, sorted.
func sharedNamespaces(repo *layout.Repo) []string {
	count := map[string]int{}
	for _, t := range repo.Targets {
		count[t.Short()]++ // a namespace, or an Application's name
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(count)) {
		if count[name] >= 2 {
			out = append(out, name)
		}
	}
	return out
}

// compareTargets are the namespace's targets on the clusters given, or on
// every cluster that deploys it.
func compareTargets(repo *layout.Repo, namespace string, clusters []string, all bool) ([]*layout.Target, error) {
	var out []*layout.Target
	if all {
		for i := range repo.Targets {
			if repo.Targets[i].Short() == namespace {
				out = append(out, &repo.Targets[i])
			}
		}
		if len(out) < 2 {
			return nil, fmt.Errorf("namespace %s is deployed on %d cluster(s): nothing to compare", namespace, len(out))
		}
		slices.SortFunc(out, func(a, b *layout.Target) int { return strings.Compare(a.Cluster, b.Cluster) })
		return out, nil
	}
	if clusters[0] == clusters[1] {
		return nil, fmt.Errorf("compare %s with itself: give two different clusters", clusters[0])
	}
	for _, c := range clusters {
		t, ok := repo.Target(c, namespace)
		if !ok {
			return nil, fmt.Errorf("no target %s/%s", c, namespace)
		}
		out = append(out, t)
	}
	return out, nil
}
