package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/output"
)

// Env is the process context a command may use: standard streams, the
// environment and the working directory. main fills it from the process;
// tests inject their own, so commands never read global state.
type Env struct {
	In       io.Reader
	Out, Err io.Writer
	// Environ is the environment as "KEY=value" entries.
	Environ []string
	// Dir is the working directory.
	Dir string
	// Version is repotool's version (BuildVersion in main); "(devel)" when
	// empty.
	Version string
}

func (e Env) version() string {
	if e.Version == "" {
		return "(devel)"
	}
	return e.Version
}

// Getenv returns the value of key in Environ ("" when unset).
func (e Env) Getenv(key string) string { return fsutil.Getenv(e.Environ, key) }

// Run executes repotool with args and returns the process exit code. It is
// the whole of main, so tests exercise exactly what users run.
func Run(ctx context.Context, args []string, s Env) int {
	root := NewRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		// One line, whatever the command was doing: not a "context
		// canceled" per target, and not a failure.
		fmt.Fprintln(s.Err, "repotool: interrupted")
		return ExitInterrupted
	}
	if err != nil {
		var msg string
		if ee, ok := err.(*exitError); !ok || ee.Err != nil {
			msg = err.Error()
		}
		if msg != "" {
			fmt.Fprintf(s.Err, "repotool: %s\n", msg)
		}
	}
	return exitCode(err)
}

// NewRootCmd builds the repotool command tree.
func NewRootCmd(s Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "repotool",
		Short: "Render, generate and lint Kubernetes GitOps manifest monorepos",
		Long: `repotool works on a GitOps monorepo of Helm charts deployed by Argo CD:

  namespaces/<ns>/Chart.yaml, common-values-*.yaml, common-values-*.secret.yaml
  clusters/<cluster>/<ns>/<env>-values-*.yaml, <env>-values-*.secret.yaml

See https://github.com/repotool/repotool for documentation.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	bi, _ := debug.ReadBuildInfo()
	root.Version = s.version()
	root.SetVersionTemplate(versionText(s.version(), bi))
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	v := &globals{}
	root.PersistentFlags().BoolVarP(&v.quiet, "quiet", "q", false, "print only results and errors: no progress, summaries or warnings on standard error")
	root.PersistentFlags().BoolVar(&v.verbose, "verbose", false, "print the library's log (downloads, cache use, warnings) on standard error")
	v.addKeyFlags(root, s)
	root.AddCommand(
		newCompareCmd(s, v),
		newDepsCmd(s, v),
		newDiffCmd(s, v),
		newGenerateCmd(s, v),
		newHydrateCmd(s, v),
		newLayoutCmd(),
		newLintCmd(s, v),
		newMigrateCmd(),
		newRenderCmd(s, v),
		newValuesCmd(),
		newVersionCmd(s),
	)
	for _, c := range root.Commands() {
		registerCompletions(c, formatsOf(c.Name()))
	}
	return root
}

// formatsOf is the -o values of a command.
func formatsOf(command string) []string {
	switch command {
	case "lint":
		return output.LintFormats()
	case "layout":
		return output.LayoutFormats()
	case "diff":
		return output.DiffFormats()
	case "values":
		return output.ValuesFormats()
	case "compare":
		return output.CompareFormats()
	}
	return nil
}

// repoArg returns the repository argument, "." when absent.
func repoArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return "."
}
