package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/output"
)

// diffExit is what makes diff exit other than 0 besides a target that
// could not be rendered.
type diffExit struct {
	failOnDelete bool // --fail-on-delete without --allow-delete
	exitCode     bool // --exit-code
}

// writeDiff prints res (and its markdown parts to outDir) and returns the
// exit the comparison calls for.
func writeDiff(cmd *cobra.Command, res *change.Result, f output.DiffFormatter, fo output.DiffOptions, outDir string, exit diffExit) error {
	if outDir != "" {
		if err := output.WriteParts(outDir, output.MarkdownParts(res, fo)); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
	}
	if err := f.Write(cmd.OutOrStdout(), res, fo); err != nil {
		return err
	}
	switch {
	case len(res.Errors) > 0:
		return &exitError{Code: ExitError, Err: fmt.Errorf("%d target(s) could not be rendered", len(res.Errors))}
	case exit.failOnDelete && len(res.Deletions()) > 0:
		return deletionError(res.Deletions())
	case exit.exitCode && res.Changed():
		return findings()
	}
	return nil
}

// mergeDiffReports merges the diff shard reports in files (separated by
// commas): what one run compares.
func mergeDiffReports(files string) (*change.Result, error) {
	var reports []*diff.ShardReport
	for _, file := range strings.Split(files, ",") {
		r, err := readRunFile(strings.TrimSpace(file), "--merge", diff.ParseShardReport)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	res, err := diff.Merge(reports)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--merge: %w", err))
	}
	return res, nil
}
