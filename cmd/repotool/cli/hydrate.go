package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// hydrateFlags are hydrate's flags.
type hydrateFlags struct {
	out, branch, dry, repoURL, secrets, since string
	check, strict, allowExpired               bool
	opts                                      render.Options
}

func newHydrateCmd(env Env, v *globals) *cobra.Command {
	f := hydrateFlags{opts: render.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "hydrate [REPO] (--out DIR | --branch PREFIX) [--dry REV]",
		Short: "Write every target's rendered manifests as Argo CD's Source Hydrator does, secrets never in plain text",
		Long: `hydrate renders every target of a commit (--dry, default HEAD, read from Git
in process: uncommitted changes play no part) and writes, into --out,
<cluster>/<namespace>/manifest.yaml (the objects as render prints them) with
the README.md and hydrator.metadata Argo CD 3.6's hydrator writes beside
them, and hydrator.metadata and .gitattributes at the root. Files are
rewritten only when their content changes, and the files of targets that are
gone are removed; nothing is written while a target fails.

Secrets never leave in plain text. --secrets refuse (the default) fails a
target whose rendering holds a Secret; --secrets sops writes each Secret with
its data and stringData SOPS-encrypted for the recipients of the .sops.yaml
creation rule that matches <cluster>/<namespace>/manifest.yaml (what Flux
and KSOPS decrypt), keeping the previous ciphertext of a Secret that did not
change when the keys here decrypt it; --secrets sealed-secrets writes each
as a strict-scope Bitnami SealedSecret for the cluster's controller
certificate (clusters/<cluster>/sealed-secrets.pem, or
hydrate.clusters.<cluster>.certificate), keeping the previous one when its
digest, keyed with the SOPS keys of the target's secret values files, is the
same. In every mode a target whose secret values land outside a Secret's
data (an env literal, an annotation, a ConfigMap) fails, naming the object,
the field and the template. See docs/hydrate.md.

--branch PREFIX commits instead, to one local branch per cluster, PREFIX +
cluster, holding <namespace>/manifest.yaml and its companions: a commit per
dry commit ("<sha7>: <subject>", with a Dry-SHA trailer), none when the
branch's tree would not change, and Argo CD's git note {"drySha": ...} under
refs/notes/hydrator.metadata either way. It never pushes, and never moves a
branch that is checked out. GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL name the
author (default: repotool).

--changed-since REV renders only the targets the change from REV to the dry
commit affects (as diff decides it), keeps the other targets' files as --out
has them, and removes those of targets the change removed.

--check writes nothing: it exits 1, listing each file as missing, differs
or stale, when the output is not what hydrating its dry commit makes: a
manifest edited or pushed by hand, a target's files missing, the stale
files of a removed target. --out is an --out folder, or a checkout of one
cluster's branch (recognised from its hydrator.metadata), checked against
the drySha of its hydrator.metadata unless --dry says otherwise; --branch
checks every cluster's branch against --dry. Each cluster is checked in the
secrets mode its hydrator.metadata records. See docs/hydrate.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runHydrate(cmd, env, &f, repoArg(args), v) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "the folder to write the hydrated manifests into")
	fl.StringVar(&f.branch, "branch", "", "commit to the local branch PREFIX<cluster> of each cluster instead")
	fl.StringVar(&f.dry, "dry", "HEAD", "the commit to hydrate: a branch, tag or commit of the repository")
	fl.StringVar(&f.repoURL, "repo-url", "", "the dry repository's URL, for hydrator.metadata (default: repotool.yaml's git.repoURL)")
	fl.StringVar(&f.since, "changed-since", "", "render only the targets the change since this revision affects; keep the others' files")
	fl.BoolVar(&f.strict, "strict", false, "fail a target whose rendering changes with no commit (lookup, the clock, random values, generated "+
		"certificates, a dependency's version range: lint's unstable-render)")
	fl.BoolVar(&f.allowExpired, "allow-expired-certificate", false, "with --secrets sealed-secrets, seal with a certificate that has expired "+
		"or is not yet valid (refused otherwise, as kubeseal refuses it)")
	fl.BoolVar(&f.check, "check", false, "write nothing; exit 1 listing the files when --out or the --branch branches differ from a hydration of "+
		"their dry commit")
	fl.StringVar(&f.secrets, "secrets", "", "how every cluster's Secrets are written: refuse (fail a target that renders one), sops (encrypted for "+
		".sops.yaml's rule for the manifest) or sealed-secrets (a SealedSecret for the cluster's certificate); default: repotool.yaml's "+
		"hydrate.secrets, else refuse")
	addDependencyFlags(fl, &f.opts)
	fl.IntVar(&f.opts.Concurrency, "concurrency", f.opts.Concurrency, "targets rendered at once")
	addLimitFlags(fl, &f.opts)
	addHelmFlag(fl, &f.opts)
	cmd.MarkFlagsOneRequired("out", "branch")
	cmd.MarkFlagsMutuallyExclusive("out", "branch")
	return cmd
}

func runHydrate(cmd *cobra.Command, env Env, f *hydrateFlags, root string, v *globals) error {
	git, err := scope.Open(root)
	if err != nil {
		return usageErr(fmt.Errorf("hydrate renders a commit, read from Git: %w", err))
	}
	supplyFrom(env, &f.opts)
	f.opts.Redacted = true // the renderings with placeholders SecretFields reads, made in parallel
	f.opts.VerifyUnstable = f.strict
	a := hydrate.Action{Git: git, Root: root, ChangedSince: f.since, Out: f.out, Branch: f.branch, Check: f.check, Layout: layoutOptions(&f.opts),
		Renderer: func(repo *layout.Repo) *render.Renderer {
			return render.New(repo, f.opts, append(v.decrypter(false), v.renderOptions(cmd.ErrOrStderr(), "hydrating")...)...)
		},
		Options: hydrate.Options{RepoURL: f.repoURL, Secrets: hydrate.SecretsMode(f.secrets), Strict: f.strict, Decrypter: v.decrypterOrDefault(),
			AllowExpiredCertificate: f.allowExpired}}
	if cmd.Flags().Changed("dry") || !f.check || f.out == "" {
		a.Dry = f.dry
	}
	run, err := a.Run(cmd.Context())
	if cerr := cmd.Context().Err(); cerr != nil {
		return cerr // interrupted: Run says so, once; nothing was written
	}
	var ie *hydrate.InputError
	if errors.As(err, &ie) {
		return usageErr(ie.Err)
	}
	if err != nil {
		return err
	}
	defer run.Close()
	if len(run.Errors) > 0 {
		return &exitError{Code: ExitFindings, Err: failedTargets(run.Errors, len(run.Repo.Targets), f.out)}
	}
	switch {
	case f.check:
		return checkHydrated(cmd, run.Result, f, run.Cluster, run.Branches, run.SHA, v)
	case f.branch != "":
		return commitBranches(cmd, env, git, run.Result, run.Branches, run.SHA, v)
	}
	rep, err := run.Sync(f.out)
	if err != nil {
		return err
	}
	reportSync(cmd, v, len(run.Repo.Targets), run.Result, rep, run.SHA, f.out)
	return nil
}

// reportSync prints what Sync did: the summary on standard error, the
// files removed on standard output.
func reportSync(cmd *cobra.Command, v *globals, targets int, res *hydrate.Result, rep *hydrate.SyncReport, sha, out string) {
	what := fmt.Sprintf("%d targets", targets)
	if len(res.Kept) > 0 {
		what = fmt.Sprintf("%d of %d targets (--changed-since)", targets-len(res.Kept), targets)
	}
	v.info(cmd.ErrOrStderr(), "hydrated %s of %s into %s: %d files written, %d unchanged, %d removed\n",
		what, sha[:min(12, len(sha))], out, len(rep.Written), len(rep.Unchanged), len(rep.Removed))
	for _, p := range rep.Removed {
		fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", p)
	}
}

// commitBranches commits res to the cluster branches and says what it did.
func commitBranches(cmd *cobra.Command, env Env, git *scope.Repo, res *hydrate.Result, branches *scope.Branches, sha string, v *globals) error {
	prefix := branches.Prefix()
	subject, err := git.Subject(sha)
	if err != nil {
		return err
	}
	commits, err := res.Commit(git.Git(), hydrate.BranchOptions{Prefix: prefix, DrySHA: sha, Subject: subject, When: time.Now(),
		Name: cmp.Or(env.Getenv("GIT_AUTHOR_NAME"), "repotool"), Email: cmp.Or(env.Getenv("GIT_AUTHOR_EMAIL"), "repotool@localhost"), Previous: branches})
	for _, c := range commits {
		what := "unchanged"
		if c.Committed {
			what = fmt.Sprintf("committed: %d files written, %d removed", len(c.Report.Written), len(c.Report.Removed))
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s)\n", c.Branch, c.SHA[:min(12, len(c.SHA))], what)
	}
	if err != nil {
		return err
	}
	v.info(cmd.ErrOrStderr(), "hydrated %s into %d branches %s*; push them with git push origin 'refs/heads/%s*' 'refs/notes/hydrator.metadata'\n",
		sha[:min(12, len(sha))], len(commits), prefix, prefix)
	return nil
}

// checkHydrated reports how the output (--out, a checkout of cluster's
// branch when cluster is not "", or the --branch branches) differs from
// res, and fails if it does.
func checkHydrated(cmd *cobra.Command, res *hydrate.Result, f *hydrateFlags, cluster string, branches *scope.Branches, sha string, v *globals) error {
	var rep *hydrate.CheckReport
	var err error
	what := f.out
	if branches != nil {
		what = "the branches " + f.branch + "*"
		rep, err = res.CheckBranches(branches)
	} else {
		rep, err = res.Check(os.DirFS(f.out), cluster)
	}
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	for _, l := range []struct {
		what  string
		paths []string
	}{{"missing", rep.Missing}, {"differs", rep.Differs}, {"stale", rep.Stale}, {"extra", rep.Extra}} {
		for _, p := range l.paths {
			fmt.Fprintf(w, "%s: %s\n", l.what, p)
		}
	}
	short := sha[:min(12, len(sha))]
	if rep.Len() > 0 {
		var counts []string
		for _, c := range []struct {
			n    int
			what string
		}{{len(rep.Missing), "missing"}, {len(rep.Differs), "differing"}, {len(rep.Stale), "stale"}, {len(rep.Extra), "extra"}} {
			if c.n > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
			}
		}
		files := "files"
		if rep.Len() == 1 {
			files = "file"
		}
		again := "hydrate it again"
		if len(rep.Extra) > 0 {
			again = "remove the extra files and links (hydrate leaves them), and hydrate it again"
		}
		return &exitError{Code: ExitFindings, Err: fmt.Errorf("%s is not the hydration of %s: %s %s; %s",
			what, short, strings.Join(counts, ", "), files, again)}
	}
	if cluster != "" {
		what += " (the branch of cluster " + cluster + ")"
	}
	v.info(cmd.ErrOrStderr(), "%s is the hydration of %s\n", what, short)
	return nil
}

// failedTargets is the error of a hydration some targets failed. What to
// do about Secrets refused in secrets mode refuse is said once, after
// the targets.
func failedTargets(errs []error, total int, out string) error {
	where := "nothing was written to " + out
	if out == "" {
		where = "nothing was committed"
	}
	msg := fmt.Sprintf("%d of %d targets failed to hydrate (%s):", len(errs), total, where)
	hint := false
	for _, e := range errs {
		var se *hydrate.SecretError
		if errors.As(e, &se) && len(se.Secrets) > 0 {
			msg += "\n  " + se.What()
			hint = true
			continue
		}
		msg += "\n  " + e.Error()
	}
	if hint {
		msg += "\nTo hydrate the targets that hold Secrets: " + hydrate.RefuseHint + "."
	}
	return fmt.Errorf("%s", msg)
}
