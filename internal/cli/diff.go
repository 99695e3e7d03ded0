package cli

import (
	"cmp"
	"fmt"
	"io/fs"
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
	var exitCode, staged bool
	opts := render.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "diff [REPO] --base REV [--head REV]",
		Short: "Show what a change deploys: the objects it adds, removes and changes in every target",
		Long: `diff compares what two revisions of the repository deploy. It reads the
revisions from Git in process (no checkout), works out which targets the
change affects (their charts and file:// dependencies, their values files,
repotool.yaml, .sops.yaml), renders only those at both revisions, and
compares their objects by group, kind, namespace and name. Without --head
it compares --base with the working tree; with --staged, with Git's index
(what the next commit records).

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
			s, err := loadSides(cmd, repoArg(args), base, head, staged, &opts)
			if err != nil {
				return err
			}
			res, err := diff.Run(cmd.Context(), s.base, s.head, s.changed, diff.Options{Render: opts})
			if err != nil {
				return err
			}
			res.Base, res.Head = base, s.headName
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
	fl.BoolVar(&staged, "staged", false, "compare Git's index (what the next commit records) instead of the working tree")
	fl.StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.DiffFormats(), "|"))
	fl.BoolVar(&exitCode, "exit-code", false, "exit 1 when anything changes, as git diff --exit-code")
	fl.BoolVar(&opts.Offline, "offline", false, "never download: remote chart dependencies must be in the cache")
	fl.StringVar(&opts.CacheDir, "cache-dir", opts.CacheDir, "dependency cache folder")
	addLimitFlags(fl, &opts)
	return cmd
}

// sides are the two sides of a comparison: base, and head (a revision,
// Git's index with staged, or else the working tree), with the paths that
// differ between them and head's name for the output.
type sides struct {
	base, head *layout.Repo
	changed    []string
	headName   string
}

// loadSides loads the two sides of a comparison of root's repository.
func loadSides(cmd *cobra.Command, root, base, head string, staged bool, opts *render.Options) (*sides, error) {
	repo, err := gitrev.Open(root)
	if err != nil {
		return nil, usageErr(err)
	}
	lopts := layoutOptions(opts)
	load := func(fsys fs.FS, name string) (*layout.Repo, error) {
		l, err := layout.Load(cmd.Context(), fsys, lopts)
		if err != nil {
			return nil, usageErr(fmt.Errorf("%s: %w", name, err))
		}
		return l, nil
	}
	s := &sides{headName: cmp.Or(head, "working tree")}
	baseFS, err := repo.Revision(base)
	if err != nil {
		return nil, usageErr(err)
	}
	if s.base, err = load(baseFS, base); err != nil {
		return nil, err
	}
	switch {
	case staged && head != "":
		return nil, usageErr(fmt.Errorf("--staged and --head both say what to compare: give one"))
	case staged:
		idx, err := repo.Index()
		if err != nil {
			return nil, usageErr(err)
		}
		if s.head, err = load(idx, "the index"); err != nil {
			return nil, err
		}
		if s.changed, err = gitrev.Diff(baseFS, idx); err != nil {
			return nil, usageErr(err)
		}
		s.headName = "index"
	case head != "":
		headFS, err := repo.Revision(head)
		if err != nil {
			return nil, usageErr(err)
		}
		if s.head, err = load(headFS, head); err != nil {
			return nil, err
		}
		if s.changed, err = repo.Changed(base, head); err != nil {
			return nil, usageErr(err)
		}
	default:
		if s.head, err = loadRepo(cmd, root, opts); err != nil {
			return nil, err
		}
		if s.changed, err = gitrev.Diff(baseFS, s.head.FS); err != nil {
			return nil, usageErr(err)
		}
	}
	return s, nil
}
