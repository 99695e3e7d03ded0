package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/render"
)

func newDiffCmd() *cobra.Command {
	var base, head, format string
	var exitCode bool
	opts := render.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "diff [REPO] --base REV [--head REV]",
		Short: "Show what a change deploys: the objects it adds, removes and changes in every target",
		Long: `diff compares what two revisions of the repository deploy. It reads the
revisions from Git in process (no checkout), works out which targets the
change affects (their charts and file:// dependencies, their values files,
repotool.yaml, .sops.yaml), renders only those at both revisions, and
compares their objects by group, kind, namespace and name. Without --head
it compares --base with the working tree.

Secret values are never shown: objects are compared on renderings where
every value from a .secret.yaml file is a placeholder, and a secret value
that changed is named by its field only.

Exit status: 0, or with --exit-code 0 when nothing changes and 1 when
something does; 2 on a usage error or when a target cannot be rendered.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := output.NewDiffFormatter(format)
			if err != nil {
				return usageErr(err)
			}
			if base == "" {
				return usageErr(fmt.Errorf("--base is required: the revision to compare with (a branch, tag or commit)"))
			}
			root := repoArg(args)
			repo, err := gitrev.Open(root)
			if err != nil {
				return usageErr(err)
			}
			baseFS, err := repo.Revision(base)
			if err != nil {
				return usageErr(err)
			}
			baseRepo, err := layout.Load(cmd.Context(), baseFS, layout.Options{})
			if err != nil {
				return usageErr(fmt.Errorf("%s: %w", base, err))
			}
			var headRepo *layout.Repo
			var changed []string
			if head != "" {
				headFS, err := repo.Revision(head)
				if err != nil {
					return usageErr(err)
				}
				if headRepo, err = layout.Load(cmd.Context(), headFS, layout.Options{}); err != nil {
					return usageErr(fmt.Errorf("%s: %w", head, err))
				}
				changed, err = repo.Changed(base, head)
				if err != nil {
					return usageErr(err)
				}
			} else {
				if headRepo, err = loadRepo(cmd, root, &opts); err != nil {
					return err
				}
				if changed, err = gitrev.Diff(baseFS, headRepo.FS); err != nil {
					return usageErr(err)
				}
			}
			res, err := diff.Run(cmd.Context(), baseRepo, headRepo, changed, diff.Options{Render: opts})
			if err != nil {
				return err
			}
			res.Base, res.Head = base, head
			if res.Head == "" {
				res.Head = "working tree"
			}
			if err := f.Write(cmd.OutOrStdout(), res); err != nil {
				return err
			}
			switch {
			case len(res.Errors) > 0:
				return &exitError{Code: ExitError, Err: fmt.Errorf("%d target(s) could not be rendered", len(res.Errors))}
			case exitCode && res.Changed():
				return findings()
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&base, "base", "", "the revision to compare with (required)")
	fl.StringVar(&head, "head", "", "the revision to compare (default: the working tree)")
	fl.StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.DiffFormats(), "|"))
	fl.BoolVar(&exitCode, "exit-code", false, "exit 1 when anything changes, as git diff --exit-code")
	fl.BoolVar(&opts.Offline, "offline", false, "never download: remote chart dependencies must be in the cache")
	fl.StringVar(&opts.CacheDir, "cache-dir", opts.CacheDir, "dependency cache folder")
	addLimitFlags(fl, &opts)
	return cmd
}
