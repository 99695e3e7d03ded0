package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// keyFlags are the operator's key policy: which keys besides age
// identities repotool may use (--allow-key, REPOTOOL_ALLOW_KEYS) and how
// long a key service may take (--key-timeout, REPOTOOL_KEY_TIMEOUT). They
// come from the command line and the environment only, never from the
// repository being read (see docs/security.md).
type keyFlags struct {
	allowKeys  []string
	keyTimeout time.Duration

	entries []string // the operator's allowances: environment, then flags
	policy  sopsfile.KeyPolicy
	sops    *decrypt.SOPS
}

// keyHelp is --allow-key's help.
const keyHelp = "allow a key besides age identities, as KIND=ID (repeatable; also $REPOTOOL_ALLOW_KEYS): hc_vault=URL[/v1/ENGINE], kms=ARN[+ROLE], " +
	"gcp_kms=RESOURCE, azure_kv=URL, hckms=ID, pgp=FINGERPRINT (runs gpg), age-plugin=NAME (runs age-plugin-NAME)"

func (k *keyFlags) addKeyFlags(root *cobra.Command, env Env) {
	root.PersistentFlags().StringArrayVar(&k.allowKeys, "allow-key", nil, keyHelp)
	root.PersistentFlags().DurationVar(&k.keyTimeout, "key-timeout", 0,
		fmt.Sprintf("time an allowed key service has to answer one request (default $REPOTOOL_KEY_TIMEOUT, else %s)", decrypt.DefaultKeyTimeout))
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		cmd.SetContext(context.WithValue(cmd.Context(), ciKey{}, env.Getenv("CI") == "true"))
		return k.resolve(env)
	}
}

// resolve reads the policy from the flags and the environment, once, and
// makes the one decrypter every command of the run uses.
func (k *keyFlags) resolve(env Env) error {
	k.entries = append([]string{env.Getenv("REPOTOOL_ALLOW_KEYS")}, k.allowKeys...)
	if _, err := sopsfile.ParseKeyPolicy(k.entries...); err != nil {
		return usageErr(err)
	}
	if k.keyTimeout == 0 {
		if t := env.Getenv("REPOTOOL_KEY_TIMEOUT"); t != "" {
			d, err := time.ParseDuration(t)
			if err != nil || d <= 0 {
				return usageErr(fmt.Errorf("REPOTOOL_KEY_TIMEOUT=%q is not a positive duration (such as 20s)", t))
			}
			k.keyTimeout = d
		}
	}
	if err := k.use(); err != nil {
		return usageErr(err)
	}
	return nil
}

// use makes the run's decrypter for the allowances in k.entries, and
// extra ones.
func (k *keyFlags) use(extra ...string) error {
	policy, err := sopsfile.ParseKeyPolicy(slices.Concat(k.entries, extra)...)
	if err != nil {
		return err
	}
	k.policy = policy
	k.sops, err = decrypt.NewSOPS(decrypt.Options{Keys: policy, KeyTimeout: k.keyTimeout})
	return err
}

// trustBase adds the key allowances of repotool.yaml as the base of a
// comparison has it (secrets.allowKeys): the base is what the change is
// checked against, reviewed and merged, while the head is the content
// under review, whose repotool.yaml is never read for keys. base is nil
// when the base could not be loaded.
func (k *keyFlags) trustBase(base *layout.Repo) error {
	if base == nil || len(base.Config.Secrets.AllowKeys) == 0 {
		return nil
	}
	if err := k.use(base.Config.Secrets.AllowKeys...); err != nil {
		return usageErr(fmt.Errorf("repotool.yaml at the base revision: secrets.allowKeys: %w", err))
	}
	return nil
}

// decrypter is the render option for secret values files: typed
// placeholders with --no-decrypt, else the run's SOPS decrypter.
func (k *keyFlags) decrypter(noDecrypt bool) []render.Option {
	if noDecrypt {
		return []render.Option{render.WithDecrypter(render.PlaceholderDecrypter{})}
	}
	return []render.Option{render.WithDecrypter(k.decrypterOrDefault())}
}

// decrypterOrDefault is the run's decrypter; a command run without the
// root's pre-run (a test calling a constructor) gets the strict default.
func (k *keyFlags) decrypterOrDefault() *decrypt.SOPS {
	if k.sops == nil {
		k.sops = &decrypt.SOPS{}
	}
	return k.sops
}
