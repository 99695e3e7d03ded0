package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// diffFlags are the diff command's flags.
type diffFlags struct {
	base, head, format, outDir, color, shard, shardReport, merge                 string
	exitCode, staged, noDecrypt, failOnDelete, allowDelete, noIgnore, asAdmitted bool
	opts                                                                         render.Options
}

func newDiffCmd(env Env, v *globals) *cobra.Command {
	d := diffFlags{opts: render.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "diff [REPO] --base REV [--head REV]",
		Short: "Show what a change deploys: the objects it adds, removes and changes in every target",
		Long:  diffLong,
		Args:  cobra.MaximumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runDiff(cmd, env, v, &d, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&d.base, "base", "", "the revision to compare with (required)")
	fl.StringVar(&d.head, "head", "", "the revision to compare (default: the working tree)")
	fl.BoolVar(&d.staged, "staged", false, "compare Git's index (what the next commit records) instead of the working tree")
	fl.StringVarP(&d.format, "output", "o", "text", "output format: "+strings.Join(output.DiffFormats(), "|"))
	fl.StringVar(&d.outDir, "out-dir", "", "also write the markdown, in comment-sized parts, as numbered files in this folder")
	fl.StringVar(&d.color, "color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set)|always|never")
	fl.BoolVar(&d.exitCode, "exit-code", false, "exit 1 when anything changes, as git diff --exit-code")
	fl.BoolVar(&d.asAdmitted, "as-admitted", false, "compare the objects as the API server would store them, after each revision's mutating "+
		"admission policies; every target of the affected clusters is compared, and each change names the policies that changed the object")
	fl.BoolVar(&d.noIgnore, "no-ignore", false, "show every change: none is hidden by diff.ignore or the default ignores (webhook caBundles, checksum/ "+
		"annotations, fields regenerated on every render)")
	fl.BoolVar(&d.failOnDelete, "fail-on-delete", false, "exit 3 when the change deletes a generated Application or AppProject, or a target's objects "+
		"wholesale, unless --allow-delete")
	fl.BoolVar(&d.allowDelete, "allow-delete", false, "approve the deletions --fail-on-delete refuses")
	fl.BoolVar(&d.noDecrypt, "no-decrypt", false, "do not decrypt secret values files: compare with typed placeholders (for runs without SOPS keys, such "+
		"as pull requests from forks)")
	fl.StringVar(&d.shard, "shard", "", "compare part i of n of the affected targets' clusters (i/n), for spreading a large change over CI jobs; see "+
		"--shard-report")
	fl.StringVar(&d.shardReport, "shard-report", "", "also write the comparison, for --merge, to this file")
	fl.StringVar(&d.merge, "merge", "", "print the comparison of these shard reports (every part of one run, separated by commas), as one run prints it, "+
		"instead of comparing")
	addDependencyFlags(fl, &d.opts)
	addLimitFlags(fl, &d.opts)
	addHelmFlag(fl, &d.opts)
	return cmd
}

// runDiff compares the revisions, or merges the shards' reports, and
// prints the comparison.
func runDiff(cmd *cobra.Command, env Env, v *globals, d *diffFlags, args []string) error {
	f, fo, err := diffFormat(cmd, env, d.format, d.color)
	if err != nil {
		return err
	}
	exit := diffExit{failOnDelete: d.failOnDelete && !d.allowDelete, exitCode: d.exitCode}
	if d.merge != "" {
		if d.base != "" || d.shard != "" || d.shardReport != "" {
			return usageErr(fmt.Errorf("--merge prints the shards' comparison: it takes no --base, --shard or --shard-report"))
		}
		res, err := mergeDiffReports(d.merge)
		if err != nil {
			return err
		}
		return writeDiff(cmd, res, f, fo, d.outDir, exit)
	}
	sh, err := parseShard(d.shard)
	if err != nil {
		return usageErr(err)
	}
	if d.base == "" {
		return usageErr(fmt.Errorf("--base is required: the revision to compare with (a branch, tag or commit)"))
	}
	s, err := loadSides(cmd, repoArg(args), d.base, d.head, d.staged, false, &d.opts)
	if err != nil {
		return err
	}
	if err := v.trustBase(s.Base); err != nil {
		return err
	}
	supplyFrom(env, &d.opts)
	dopts := diff.Options{Render: d.opts, Extra: append(v.decrypter(d.noDecrypt), v.renderOptions(cmd.ErrOrStderr(), "rendering")...),
		NoIgnore: d.noIgnore, Shard: sh}
	if d.asAdmitted {
		dopts.AsAdmitted = admitter(d.opts)
	}
	report, err := diff.RunShard(cmd.Context(), s.Base, s.Head, s.Changed, dopts)
	if err != nil {
		return err
	}
	res := report.Result
	res.Base, res.Head, res.NotDecrypted = d.base, s.HeadName, d.noDecrypt
	report.Base, report.Head = res.Base, res.Head
	if d.shardReport != "" {
		if err := writeRunFile(d.shardReport, "--shard-report", report); err != nil {
			return err
		}
	}
	return writeDiff(cmd, res, f, fo, d.outDir, exit)
}

// diffLong is the command's help.
const diffLong = `diff compares what two revisions of the repository deploy. It reads the
revisions from Git in process (no checkout), works out which targets the
change affects (their charts and file:// dependencies, their values files,
repotool.yaml, .sops.yaml), renders only those at both revisions, and
compares their objects by group, kind, namespace and name. Without --head
it compares --base with the working tree; with --staged, with Git's index
(what the next commit records).

Secret values are never shown: objects are compared on renderings where
every value from a .secret.yaml file is a placeholder, and a secret value
that changed is named by its field only. --no-decrypt compares without
SOPS keys (pull requests from forks): a changed secret value is then not
seen, and the output says so.

  -o text      the affected targets, then each changed object's diff
               (default; coloured on a terminal, unless NO_COLOR is set)
  -o json      a versioned document: see docs/diff.md
  -o markdown  for pull-request comments: a summary table, then collapsible
               sections per cluster and namespace, in parts of at most
               65,536 characters

Noise is hidden, and counted: a changed object is not shown when every field
that changed is a webhook's caBundle, a checksum/ annotation (when nothing
else changed), a field the chart regenerates on every render (genCA,
randAlphaNum: found by rendering head twice), or a field repotool.yaml's
diff.ignore names; the summary lists each one hidden and why. --no-ignore
shows them.

--out-dir DIR also writes the markdown parts as DIR/diff-001.md, ... (and
removes parts left there by an earlier, longer diff), whatever -o is.

--fail-on-delete guards against the most dangerous change a monorepo pull
request can make: when the change removes a generated Application or
AppProject, or a target with every object it deployed, diff names them and
exits 3, unless --allow-delete approves it (the GitHub Action passes it
when the pull request's description has a line "repotool: allow-delete").

A large change can be compared in parts, one CI job each: --shard i/n
compares the affected targets of part i of the clusters (the first part
also the generated Argo CD objects) and --shard-report FILE keeps the
part's comparison; --merge FILE,FILE,... then prints every part's as one
run prints it (every format, --out-dir, the same exit status).

Exit status: 0, or with --exit-code 0 when nothing changes and 1 when
something does; 2 on a usage error or when a target cannot be rendered; 3
for a deletion --fail-on-delete refuses.`

// deletionError is diff --fail-on-delete's refusal, naming what the change
// deletes and how to approve it.
func deletionError(deletions []string) error {
	return &exitError{Code: ExitDeletion, Err: fmt.Errorf("the change deletes %s; if that is meant, approve it: --allow-delete, or, with the GitHub "+
		"Action, a line \"repotool: allow-delete\" in the pull request's description",
		strings.Join(deletions, ", "))}
}

// diffFormat is the diff formatter -o names, with its options (--color).
func diffFormat(cmd *cobra.Command, env Env, format, color string) (output.DiffFormatter, output.DiffOptions, error) {
	f, err := output.NewDiffFormatter(format)
	if err != nil {
		return nil, output.DiffOptions{}, usageErr(err)
	}
	fo, err := diffOptions(cmd, env, color)
	if err != nil {
		return nil, fo, usageErr(err)
	}
	return f, fo, nil
}

// diffOptions are the formats' options: colour for --color (auto: standard
// output is a terminal and NO_COLOR is not set), and, in GitHub Actions,
// the run's log as where a cut diff can be read whole.
func diffOptions(cmd *cobra.Command, env Env, color string) (output.DiffOptions, error) {
	var fo output.DiffOptions
	var err error
	if fo.Color, err = colorOn(cmd, env, color); err != nil {
		return fo, err
	}
	server, repo, run := env.Getenv("GITHUB_SERVER_URL"), env.Getenv("GITHUB_REPOSITORY"), env.Getenv("GITHUB_RUN_ID")
	if server != "" && repo != "" && run != "" {
		fo.FullOutput = fmt.Sprintf("the log of [the workflow run](%s/%s/actions/runs/%s)", server, repo, run)
	}
	return fo, nil
}

// loadSides loads the two sides of a comparison of root's repository
// (scope.LoadSides); its errors are usage errors.
func loadSides(cmd *cobra.Command, root, base, head string, staged, anyBase bool, opts *render.Options) (*scope.Sides, error) {
	if staged && head != "" {
		return nil, usageErr(errors.New("--staged and --head both say what to compare: give one"))
	}
	lo := layoutOptions(opts)
	var git *scope.Repo
	if head == "" && !staged {
		git = ignoredIn(cmd, root, &lo) // the working tree is head
	}
	s, err := scope.LoadSides(cmd.Context(), root, scope.SidesOptions{Base: base, Head: head, Staged: staged, AnyBase: anyBase, Layout: lo, Repo: git})
	if err != nil {
		return nil, usageErr(err)
	}
	warnIgnored(cmd, s.Head.Diagnostics)
	return s, nil
}

// colorOn reports whether --color asks for colour: always, never, or auto
// (standard output is a terminal, NO_COLOR is not set and TERM is not
// dumb).
func colorOn(cmd *cobra.Command, env Env, color string) (bool, error) {
	switch color {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := cmd.OutOrStdout().(*os.File)
		return ok && term.IsTerminal(int(f.Fd())) && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb", nil
	}
	return false, fmt.Errorf("--color %q: use auto, always or never", color)
}
