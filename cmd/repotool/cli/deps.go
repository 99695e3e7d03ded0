package cli

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

const depsHelp = `deps fetches the charts' remote dependencies into repotool's cache, verified
as render verifies them (against the chart repository's index.yaml, and
repotool.sum's pins), and pins every archive it fetched in repotool.sum, so
that later runs, offline ones and Argo CD's plugin too, render without the
network. It replaces helm dependency build and update: nothing is written
into the charts' charts/ folders.

  deps build [REPO]    fetch the versions each Chart.lock pins (or Chart.yaml asks)
  deps update [REPO]   resolve the newest versions Chart.yaml's constraints allow,
                       fetch them, and write each chart's Chart.lock

Without --chart, every chart a namespace deploys and the file:// charts they
depend on. A dependency under a chart's charts/ folder is used as it is.

Exit status: 0; 1 when a chart's dependencies cannot be fetched (each is
named, with its fix; the others are fetched); 2 on a usage error.`

func newDepsCmd(env Env, v *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "deps (build|update) [REPO]",
		Short: "Fetch charts' remote dependencies into the verified cache, pin them, and (update) write Chart.lock",
		Long:  depsHelp,
	}
	cmd.AddCommand(newDepsSubcommand(env, v, "build", false), newDepsSubcommand(env, v, "update", true))
	return cmd
}

func newDepsSubcommand(env Env, v *globals, name string, update bool) *cobra.Command {
	opts := render.DefaultOptions()
	var charts []string
	cmd := &cobra.Command{
		Use:   name + " [REPO]",
		Short: map[bool]string{false: "Fetch the versions each Chart.lock pins", true: "Resolve the newest allowed versions and write Chart.lock"}[update],
		Long:  depsHelp,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			supplyFrom(env, &opts)
			repo, err := loadRepo(cmd, repoArg(args), &opts)
			if err != nil {
				return err
			}
			r := render.New(repo, opts, v.renderOptions(cmd.ErrOrStderr(), "")...)
			res, ferr := r.Dependencies(cmd.Context(), render.DependenciesOptions{Charts: charts, Update: update})
			writeDependencies(cmd.OutOrStdout(), res)
			if err := writeDepsFiles(cmd.OutOrStdout(), repo, res); err != nil {
				return err
			}
			if ferr != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "repotool: %v\n", ferr)
				return findings()
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&charts, "chart", nil, "a chart folder, relative to the repository root (repeatable; default: every chart)")
	addDependencyFlags(cmd.Flags(), &opts)
	return cmd
}

// writeDependencies prints one line per dependency.
func writeDependencies(w io.Writer, res *render.Dependencies) {
	for _, d := range res.Dependencies {
		how := d.Digest
		switch {
		case d.Vendored:
			how = "vendored under " + d.Chart + "/charts/"
		case strings.HasPrefix(d.Repository, "file://"):
			how = "in the repository"
		}
		asked := ""
		if d.Constraint != "" && d.Constraint != d.Version {
			asked = " (" + d.Constraint + ")"
		}
		fmt.Fprintf(w, "%s: %s %s%s from %s: %s\n", d.Chart, d.Name, d.Version, asked, d.Repository, how)
	}
}

// writeDepsFiles writes the Chart.lock files and repotool.sum the run
// changes, in the repository's folder, and says so.
func writeDepsFiles(w io.Writer, repo *layout.Repo, res *render.Dependencies) error {
	files := map[string][]byte{}
	for p, data := range res.Locks {
		files[p] = data
	}
	if res.Sums != nil {
		files[layout.SumsFile] = res.Sums
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := fsutil.WriteFileAtomic(filepath.Join(repo.Root, filepath.FromSlash(p)), files[p]); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		fmt.Fprintf(w, "wrote %s\n", p)
	}
	return nil
}
