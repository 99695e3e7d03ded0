package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/output"
)

func newLayoutCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "layout [REPO]",
		Short: "Show every target with its values files in merge order, and the layout's problems",
		Long: `layout loads the repository (default: the current directory) and prints its
inventory: every (cluster, namespace) target with its values files in merge
order (common plain, common secret, cluster-wide, cluster plain, cluster
secret; or the order repotool.yaml lists them in), then any problems with
the layout.

Exit status: 0 when there are no error diagnostics, 1 when there are, 2 on a
usage error, an invalid repotool.yaml or an unreadable repository.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := output.NewLayoutFormatter(format)
			if err != nil {
				return usageErr(err)
			}
			repo, err := loadRepo(cmd, repoArg(args))
			if err != nil {
				return err
			}
			if err := f.Write(cmd.OutOrStdout(), repo); err != nil {
				return err
			}
			if repo.HasErrors() {
				return findings()
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.LayoutFormats(), "|"))
	return cmd
}
