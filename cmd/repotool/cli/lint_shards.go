package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// A sharded lint hands files from one run to another: each shard's report
// (--shard-report, read by --merge), and the CRD inventory made once
// (--crd-inventory-out, read by each shard's --crd-inventory).

// prepareLint loads the repository f lints, and sets the run's cache and
// key policy; it returns the render options lint renders with.
func prepareLint(cmd *cobra.Command, env Env, v *globals, root string, f *lintFlags) (*layout.Repo, []render.Option, error) {
	opts := &f.opts
	repo, err := lintRepo(cmd, v, root, f.changedSince, f.staged, opts)
	if err != nil {
		return nil, nil, err
	}
	supplyFrom(env, &opts.Render)
	opts.Keys = v.policy
	return repo, append(v.decrypter(f.noDecrypt), v.renderOptions(cmd.ErrOrStderr(), "rendering")...), nil
}

// writeInventory is lint --crd-inventory-out: the CRDs the repository's
// targets render, for the shards of a run, written to a file.
func writeInventory(cmd *cobra.Command, env Env, v *globals, root string, f *lintFlags) error {
	if f.opts.Shard.N > 1 || len(f.merge) > 0 {
		return usageErr(fmt.Errorf("--crd-inventory-out makes the inventory for every shard: give it without --shard or --merge"))
	}
	repo, extra, err := prepareLint(cmd, env, v, root, f)
	if err != nil {
		return err
	}
	inv, err := lint.Inventory(cmd.Context(), repo, f.opts, extra...)
	if err != nil {
		return err
	}
	if err := writeRunFile(f.inventoryOut, "--crd-inventory-out", inv); err != nil {
		return err
	}
	if !v.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "%d CRDs in %s\n", len(inv.CRDs), f.inventoryOut)
	}
	return nil
}

// mergeShards merges the shards' reports in files, with the repository's
// suppressions and severities.
func mergeShards(cmd *cobra.Command, root string, files []string) (*lint.Result, error) {
	repo, err := loadRepo(cmd, root)
	if err != nil {
		return nil, err
	}
	mg := lint.NewMerger(repo)
	for _, file := range files { // one report in memory at a time
		r, err := readRunFile(file, "--merge", lint.ParseShardReport)
		if err != nil {
			return nil, err
		}
		if err := mg.Add(r); err != nil {
			return nil, usageErr(fmt.Errorf("--merge: %w", err))
		}
	}
	res, err := mg.Merged()
	if err != nil {
		return nil, usageErr(fmt.Errorf("--merge: %w", err))
	}
	return res, nil
}

// writeRunFile writes v as indented JSON to file, atomically, for another
// run; flag names the option in the error.
func writeRunFile(file, flag string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = fsutil.WriteFileAtomic(file, append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// readRunFile reads a file another run wrote, with parse; flag names the
// option in the usage error.
func readRunFile[T any](file, flag string, parse func([]byte) (*T, error)) (*T, error) {
	data, err := fsutil.ReadOSFile(file, fsutil.DefaultMaxFileSize*8)
	var v *T
	if err == nil {
		v, err = parse(data)
	}
	if err != nil {
		return nil, usageErr(fmt.Errorf("%s %s: %w", flag, file, err))
	}
	return v, nil
}
