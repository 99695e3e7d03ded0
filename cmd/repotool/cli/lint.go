package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/scope"
)

// lintFlags are lint's flags.
type lintFlags struct {
	opts                                                                           lint.Options
	format, failOn, sarifFile, baseline, writeBaseline, shard, changedSince, color string
	noDecrypt, staged, strict                                                      bool
	// shardReport is where a shard writes its report for --merge; merge
	// the shards' reports to merge instead of linting.
	shardReport string
	merge       []string
	// inventoryOut is where --crd-inventory-out writes the CRD inventory
	// for the shards; inventory the one a shard reads.
	inventoryOut, inventory string
}

func newLintCmd(env Env, v *globals) *cobra.Command {
	f := &lintFlags{opts: lint.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "lint [REPO]",
		Short: "Check the repository's files and every target's rendered manifests",
		Long:  lintLong,
		Args:  cobra.MaximumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runLint(cmd, env, v, repoArg(args), f) },
	}
	opts := &f.opts
	fl := cmd.Flags()
	fl.StringVarP(&f.format, "output", "o", "text", "output format: "+strings.Join(output.LintFormats(), "|"))
	fl.StringVar(&f.color, "color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set)|always|never")
	fl.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding is at least this severe: error|warning|info")
	fl.StringVar(&f.sarifFile, "sarif-file", "", "also write SARIF 2.1.0 to this file")
	fl.StringVar(&f.baseline, "baseline", "", "leave out the findings recorded in this baseline file: report only new ones")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "record every finding in this baseline file (for --baseline) and exit 0")
	fl.StringVarP(&opts.Cluster, "cluster", "c", "", "lint only this cluster's targets (and findings about their files)")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "with --cluster: lint only this target")
	fl.StringVar(&f.changedSince, "changed-since", "", "lint only the targets the change since this revision affects, and the checks about no target")
	fl.BoolVar(&f.staged, "staged", false, "lint Git's index (what the next commit records): only the targets the staged change affects")
	fl.BoolVar(&f.strict, "strict", false, "a values file Git ignores in the working tree is an error, not a warning (always when $CI is true)")
	fl.StringVar(&f.shard, "shard", "", "lint part i of n of the clusters (i/n), for spreading a large repository over CI jobs; see --shard-report")
	fl.StringVar(&f.shardReport, "shard-report", "", "with --shard: also write the shard's report to this file, for --merge")
	fl.StringVar(&f.inventoryOut, "crd-inventory-out", "", "render every target that may render a CRD, write their CRDs to this file for the shards "+
		"(--crd-inventory), and lint nothing")
	fl.StringVar(&f.inventory, "crd-inventory", "", "with --shard: take the other shards' CRDs from this file (made by --crd-inventory-out) instead "+
		"of rendering them")
	fl.StringSliceVar(&f.merge, "merge", nil, "merge the reports of every shard (files, repeatable or comma-separated) into one run's findings, "+
		"instead of linting")
	fl.StringVar(&opts.SchemaDir, "schema-dir", "", "keep the JSON schemas the schema rule used in this folder, in kubeconform's layout")
	fl.BoolVar(&f.noDecrypt, "no-decrypt", false, "do not decrypt secret values files: use typed placeholders (for runs without SOPS keys, such as pull "+
		"requests from forks)")
	fl.StringVar(&opts.Render.KubeVersion, "kube-version", "", "Kubernetes version for every target (default: from repotool.yaml)")
	addDependencyFlags(fl, &opts.Render)
	fl.IntVar(&opts.Render.Concurrency, "concurrency", opts.Render.Concurrency, "targets rendered at once")
	fl.IntVar(&opts.HeldTargets, "held-targets", lint.DefaultHeldTargets, "hold at most this many targets' renderings at once: a larger run over "+
		"several clusters is checked a cluster at a time, with the same findings (-1: no bound)")
	addLimitFlags(fl, &opts.Render)
	addHelmFlag(fl, &opts.Render)
	return cmd
}

// runLint lints the repository at root as f says and prints the findings.
func runLint(cmd *cobra.Command, env Env, v *globals, root string, f *lintFlags) error {
	lf, err := output.NewLintFormatter(f.format)
	if err != nil {
		return usageErr(err)
	}
	color, err := colorOn(cmd, env, f.color)
	if err != nil {
		return usageErr(err)
	}
	threshold, err := lint.ParseSeverity(f.failOn)
	if err != nil {
		return usageErr(fmt.Errorf("--fail-on: %w", err))
	}
	opts := &f.opts
	if opts.Shard, err = parseShard(f.shard); err != nil {
		return usageErr(err)
	}
	switch {
	case f.shardReport != "" && opts.Shard.N <= 1:
		return usageErr(fmt.Errorf("--shard-report needs --shard"))
	case f.inventory != "" && opts.Shard.N <= 1:
		return usageErr(fmt.Errorf("--crd-inventory needs --shard"))
	case len(f.merge) > 0 && (opts.Shard.N > 1 || f.changedSince != "" || f.staged):
		return usageErr(fmt.Errorf("--merge merges the shards' reports: give it without --shard, --changed-since or --staged"))
	}
	if f.strict {
		cmd.SetContext(context.WithValue(cmd.Context(), strictKey{}, true))
	}
	if f.inventoryOut != "" {
		return writeInventory(cmd, env, v, root, f)
	}
	res, err := lintOrMerge(cmd, env, v, root, f)
	if err != nil {
		return err
	}
	if f.writeBaseline != "" {
		return writeBaselineFile(cmd, f.writeBaseline, res, v)
	}
	if f.baseline != "" {
		if err := applyBaselineFile(f.baseline, res); err != nil {
			return usageErr(err)
		}
	}
	if err := writeLint(cmd, env, res, lf, lintOutput{f.format, f.sarifFile, root, color}); err != nil {
		return err
	}
	if res.ExitCode(threshold) != 0 {
		return findings()
	}
	return nil
}

// lintOrMerge lints the repository as f says, writing the shard's report
// with --shard-report, or, with --merge, merges the shards' reports.
func lintOrMerge(cmd *cobra.Command, env Env, v *globals, root string, f *lintFlags) (*lint.Result, error) {
	opts := &f.opts
	if len(f.merge) > 0 {
		return mergeShards(cmd, root, f.merge)
	}
	repo, extra, err := prepareLint(cmd, env, v, root, f)
	if err != nil {
		return nil, err
	}
	if f.inventory != "" {
		if opts.CRDInventory, err = readRunFile(f.inventory, "--crd-inventory", lint.ParseCRDInventory); err != nil {
			return nil, err
		}
	}
	res, err := lint.Lint(cmd.Context(), repo, *opts, extra...)
	var se *lint.ScopeError
	if errors.As(err, &se) {
		return nil, usageErr(err)
	}
	if err != nil {
		return nil, err
	}
	if f.shardReport != "" {
		if err := writeRunFile(f.shardReport, "--shard-report", res.ShardReport(opts.Shard)); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// lintLong is the command's help.
const lintLong = `lint renders every target (as render does, secrets decrypted in memory) and
runs every rule over the repository's files and the rendered manifests: see
docs/rules.md. Findings never contain secret values.

  -o text      one line per finding (default)
  -o json      {"findings": [...], "summary": {...}}
  -o sarif     SARIF 2.1.0, for GitHub code scanning
  -o github    GitHub Actions annotations; overflow to $GITHUB_STEP_SUMMARY

--changed-since REV lints only the targets the change since REV (a branch,
tag or commit) affects, as repotool diff works them out, plus the checks
about no target (files, layout, configuration); where the change touches
what applies to a whole cluster (an admission policy or binding, a CRD, a
Namespace, a file of clusters.<c>.admissionPolicies), every target of that
cluster. --staged lints Git's index,
what the next commit records, and only the targets the staged change
affects (since HEAD, or since --changed-since): the pre-commit hooks use it,
so files that are not staged play no part.

--shard i/n lints the i-th of n parts of the clusters (every target of a
cluster in one part), for CI jobs side by side; --shard-report FILE writes
the part's report too, and a last job's --merge FILE,... prints what one run
would: the same findings, order and exit status (docs/ci.md).

--sarif-file writes SARIF to a file as well, whatever -o is. --no-decrypt
lints without SOPS keys: encrypted values become typed placeholders, so every
check that does not need the real values still runs.

Exit status: 0 when no finding is at or above --fail-on, 1 when one is, 2 on
a usage error, an invalid repotool.yaml or an unreadable repository.`

// lintRepo loads the repository to lint: the working tree, or Git's index
// with staged. With changedSince or staged, it limits opts to the targets
// the change affects.
func lintRepo(cmd *cobra.Command, v *globals, root, changedSince string, staged bool, opts *lint.Options) (*layout.Repo, error) {
	if changedSince == "" && !staged {
		return loadRepo(cmd, root, &opts.Render)
	}
	if staged && changedSince == "" {
		changedSince = "HEAD"
	}
	s, err := loadSides(cmd, root, changedSince, "", staged, true, &opts.Render)
	if err != nil {
		return nil, err
	}
	if err := v.trustBase(s.Base); err != nil {
		return nil, err
	}
	if s.Base == nil {
		// The base cannot be compared with (the first commit, or a layout
		// being fixed): lint everything.
		return s.Head, nil
	}
	opts.Targets = s.Checked()
	return s.Head, nil
}

// lintOutput is what lint's flags say about its output.
type lintOutput struct {
	format, sarifFile, repo string
	color                   bool
}

// writeLint writes the findings in format f to standard output, SARIF to
// the SARIF file when given, and, for the github format in GitHub Actions,
// the job summary.
func writeLint(cmd *cobra.Command, env Env, res *lint.Result, f output.LintFormatter, o lintOutput) error {
	format, sarifFile := o.format, o.sarifFile
	fo := output.LintOptions{Rules: lint.RuleDocs(), ToolVersion: env.version(), PathPrefix: gitPrefix(o.repo)}
	fo.Color = o.color
	var summary bytes.Buffer
	if p := env.Getenv("GITHUB_STEP_SUMMARY"); p != "" && format == "github" {
		fo.StepSummary = &summary
		defer appendFile(p, &summary)
	}
	if sarifFile != "" {
		var b bytes.Buffer
		s, _ := output.NewLintFormatter("sarif")
		if err := s.Write(&b, &res.Report, fo); err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(sarifFile, b.Bytes()); err != nil {
			return fmt.Errorf("write %s: %w", sarifFile, err)
		}
	}
	return f.Write(cmd.OutOrStdout(), &res.Report, fo)
}

// gitPrefix is the repository folder's path inside the Git repository that
// holds it ("" when it is the Git repository's root, or in none): GitHub
// resolves annotation and SARIF paths from the Git root.
func gitPrefix(dir string) string {
	if r, err := scope.Open(dir); err == nil {
		return r.Dir()
	}
	return ""
}

// writeBaselineFile records res in a baseline file.
func writeBaselineFile(cmd *cobra.Command, file string, res *lint.Result, v *globals) error {
	var b bytes.Buffer
	if err := lint.NewBaseline(res).Write(&b); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(file, b.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	v.info(cmd.ErrOrStderr(), "recorded %d findings in %s; lint with --baseline %s reports only new ones\n", len(res.Findings), file, file)
	return nil
}

// applyBaselineFile leaves out of res the findings a baseline file records.
func applyBaselineFile(file string, res *lint.Result) error {
	data, err := fsutil.ReadOSFile(file, fsutil.DefaultMaxFileSize)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	b, err := lint.ReadBaseline(file, bytes.NewReader(data))
	if err != nil {
		return err
	}
	res.ApplyBaseline(b)
	return nil
}

// appendFile appends the buffer to a file (GitHub's step summary is shared
// by the steps of a job).
func appendFile(path string, b *bytes.Buffer) {
	if b.Len() == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(b.Bytes())
}
