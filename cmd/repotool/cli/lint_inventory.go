package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/lint"
)

// writeInventory is lint --crd-inventory-out: the CRDs the repository's
// targets render, for the shards of a run, written to a file.
func writeInventory(cmd *cobra.Command, env Env, v *globals, root string, f *lintFlags) error {
	opts := &f.opts
	if opts.Shard.N > 1 || len(f.merge) > 0 {
		return usageErr(fmt.Errorf("--crd-inventory-out makes the inventory for every shard: give it without --shard or --merge"))
	}
	repo, err := lintRepo(cmd, v, root, f.changedSince, f.staged, opts)
	if err != nil {
		return err
	}
	opts.Render.CacheDir = cacheDir(env, opts.Render.CacheDir)
	opts.Keys = v.policy
	inv, err := lint.Inventory(cmd.Context(), repo, *opts, append(v.decrypter(f.noDecrypt), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)...)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(inv, "", "  ")
	if err == nil {
		err = fsutil.WriteFileAtomic(f.inventoryOut, append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("--crd-inventory-out: %w", err)
	}
	if !v.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "%d CRDs in %s\n", len(inv.CRDs), f.inventoryOut)
	}
	return nil
}
