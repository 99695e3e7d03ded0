package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/schema"
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

// versionText says which repotool this is: its module version, the commit
// it was built from (when the build recorded it), the Go toolchain, the
// Helm and SOPS libraries it renders and decrypts with, and the Kubernetes
// versions whose schemas it embeds.
func versionText(version string, bi *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "repotool %s\n", version)
	if bi == nil {
		bi = &debug.BuildInfo{GoVersion: "unknown"}
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	commit := "unknown (this build did not record it: a build from a Git checkout does, go install ...@version records the version)"
	if rev := settings["vcs.revision"]; rev != "" {
		commit = rev
		if settings["vcs.modified"] == "true" {
			commit += " (dirty: built with uncommitted changes)"
		}
		if t := settings["vcs.time"]; t != "" {
			commit += ", " + t
		}
	}
	fmt.Fprintf(&b, "commit:      %s\n", commit)
	fmt.Fprintf(&b, "go:          %s\n", bi.GoVersion)
	for _, dep := range []struct{ name, path string }{
		{"helm", "helm.sh/helm/v3"},
		{"sops", "github.com/getsops/sops/v3"},
		{"kubeconform", "github.com/yannh/kubeconform"},
	} {
		for _, m := range bi.Deps {
			if m.Path == dep.path {
				fmt.Fprintf(&b, "%-12s %s\n", dep.name+":", m.Version)
			}
		}
	}
	if minors := schema.Minors(); len(minors) > 0 {
		fmt.Fprintf(&b, "kubernetes:  schemas for 1.%d to 1.%d embedded\n", minors[0], minors[len(minors)-1])
	}
	return b.String()
}

func newVersionCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print repotool's version, commit, and the versions of Go, Helm, SOPS and the embedded Kubernetes schemas",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			_, err := cmd.OutOrStdout().Write([]byte(versionText(env.version(), bi)))
			return err
		},
	}
}
