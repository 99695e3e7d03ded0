package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/render"
)

func newValuesCmd() *cobra.Command {
	var cluster, namespace, format, get, helm string
	var origin bool
	cmd := &cobra.Command{
		Use:   "values [REPO] -c CLUSTER -n NAMESPACE",
		Short: "Show a target's effective values, and with --origin where each comes from",
		Long: `values prints what a target's chart receives as .Values: its values files
merged in layout order, coalesced with the chart's and its subcharts'
defaults, as helm template does. --origin adds, to each value, the file and
line that set it, the files it overrode, and whether it replaced a list
(Helm replaces lists whole). A value from a secret values file is never
printed: "(secret: FILE:LINE)" stands in its place, and secret files are not
even decrypted for this. --get a.b.c prints one subtree.

Exit status: 0, or 2 on a usage error, an unknown target, or a target whose
chart or values cannot be read.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := output.NewValuesFormatter(format)
			if err != nil {
				return usageErr(err)
			}
			if cluster == "" || namespace == "" {
				return usageErr(fmt.Errorf("values needs --cluster and --namespace"))
			}
			opts := render.DefaultOptions()
			opts.Helm = helm
			repo, err := loadRepoOnly(cmd, repoArg(args), &layout.TargetRef{Cluster: cluster, Namespace: namespace}, &opts)
			if err != nil {
				return err
			}
			t, ok := repo.Target(cluster, namespace)
			if !ok {
				return usageErr(fmt.Errorf("no target %s/%s in %s", cluster, namespace, repo.Root))
			}
			eff, err := render.New(repo, opts).EffectiveValues(cmd.Context(), t)
			if err != nil {
				return usageErr(err)
			}
			var path []string
			if get != "" {
				path = strings.Split(get, ".")
			}
			if err := f.Write(cmd.OutOrStdout(), eff, output.ValuesOptions{Path: path, Origin: origin}); err != nil {
				return usageErr(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&cluster, "cluster", "c", "", "the target's cluster")
	fl.StringVarP(&namespace, "namespace", "n", "", "the target's namespace")
	fl.BoolVar(&origin, "origin", false, "say where each value comes from")
	fl.StringVar(&get, "get", "", "print only the subtree at this dot-separated key path")
	fl.StringVarP(&format, "output", "o", "yaml", "output format: "+strings.Join(output.ValuesFormats(), "|"))
	fl.Var(helmValue{&helm}, "helm", "read values files as this Helm does: v3 or v4 (default: repotool.yaml's render.helm, else v3)")
	return cmd
}
