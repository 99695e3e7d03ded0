package cli

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// BuildVersion is repotool's module version as the Go toolchain recorded it
// in the binary ("(devel)" for a build from a checkout). main passes it in
// Env.Version.
func BuildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func newVersionCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print repotool's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write([]byte(env.version() + "\n"))
			return err
		},
	}
}
