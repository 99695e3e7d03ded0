package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/migrate"
)

func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Rewrite the repository's objects for a new API (kes-to-eso)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newKESToESOCmd())
	return cmd
}

func newKESToESOCmd() *cobra.Command {
	var write, doSwitch bool
	var sets []string
	opts := migrate.Options{}
	cmd := &cobra.Command{
		Use:   "kes-to-eso [REPO]",
		Short: "Convert kubernetes-external-secrets ExternalSecrets to External Secrets Operator, with their SecretStores",
		Long: `kes-to-eso finds every kubernetes-external-secrets (kubernetes-client.io/v1)
ExternalSecret in the repository's manifests and in chart templates that
write the object literally (template actions only as values), and writes
its External Secrets Operator (external-secrets.io/v1) translation, with
the SecretStores it reads from in kes-secretstores.yaml next to it. See
docs/migrate.md.

It prints a unified diff of every file it would change, and a report on
standard error: what it converted, what it refused (file:line and why) and
what to do by hand (placeholders REPLACE-ME / replace-me in the stores,
for backend settings the repository cannot know: give them with --set or
migrate.kesToEso in repotool.yaml). --write applies the change, each file
written atomically. SOPS-encrypted files are never read or written.

Side by side: --target-suffix SUFFIX keeps every KES object and adds its
translation writing the Secret NAME+SUFFIX, so both controllers run while
you compare the Secrets; later, --switch removes the KES objects and the
suffix.

Exit status: 0 when every KES object was converted, 1 when one was refused,
2 on a usage error or a file that cannot be read.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := repoArg(args)
			settings, err := migrateSettings(root, sets)
			if err != nil {
				return usageErr(err)
			}
			opts.Settings, opts.Switch = settings, doSwitch
			if doSwitch && opts.Suffix != "" {
				return usageErr(errors.New("--switch removes the suffix of an earlier --target-suffix run: give one of them"))
			}
			res, err := migrate.Plan(os.DirFS(root), opts)
			if err != nil {
				return usageErr(err)
			}
			if write {
				if err := res.Write(root); err != nil {
					return err
				}
			} else if _, err := io.WriteString(cmd.OutOrStdout(), res.Diff()); err != nil {
				return err
			}
			if err := res.WriteReport(cmd.ErrOrStderr(), write); err != nil {
				return err
			}
			if len(res.Refused) > 0 {
				return findings()
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&write, "write", false, "write the change (default: print its diff)")
	fl.StringVar(&opts.Suffix, "target-suffix", "", "keep the KES objects and add the translations next to them, writing Secrets named NAME+SUFFIX")
	fl.BoolVar(&doSwitch, "switch", false, "finish a side-by-side migration: remove the KES objects and the suffix")
	fl.StringVar(&opts.StoreKind, "store-kind", "SecretStore", "the stores to write: SecretStore (per namespace, next to the objects) or ClusterSecretStore")
	fl.StringVar(&opts.ESOVersion, "eso-version", migrate.DefaultESOVersion, "the External Secrets Operator major version to write for (2: the Alibaba "+
		"Cloud provider, removed in ESO 2.0, is refused; 1 converts it)")
	fl.StringArrayVar(&sets, "set", nil, "a backend setting, NAME=VALUE (aws.region, vault.server, ...: see docs/migrate.md); over repotool.yaml's "+
		"migrate.kesToEso")
	return cmd
}

// migrateSettings are repotool.yaml's migrate.kesToEso with --set over
// them.
func migrateSettings(root string, sets []string) (migrate.Settings, error) {
	s := migrate.Settings{}
	data, err := fsutil.ReadOSFile(filepath.Join(root, config.FileName), fsutil.DefaultMaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		cfg, _, err := config.Parse(config.FileName, data)
		if err != nil {
			return nil, fmt.Errorf("invalid configuration: %w", err)
		}
		for k, v := range cfg.Migrate.KESToESO {
			s[k] = v
		}
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: give NAME=VALUE", kv)
		}
		s[k] = v
	}
	return s, nil
}
