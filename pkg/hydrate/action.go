package hydrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// Action is a whole hydration as `repotool hydrate` asks for one: which
// commit, which targets, where the output stands. Run decides the rest.
type Action struct {
	// Git is the repository, opened at Root, the folder the user named.
	Git  *scope.Repo
	Root string
	// Dry is the commit to hydrate; "" with Check and Out: the dry commit
	// Out's hydrator.metadata records, else HEAD.
	Dry string
	// ChangedSince, when given, hydrates only the targets the change from
	// it to Dry affects (and those whose Secrets' key changed).
	ChangedSince string
	// Out is the folder written (or checked); Branch the prefix of the
	// cluster branches committed (or checked) instead.
	Out, Branch string
	// Check writes nothing: the output is compared with the hydration.
	Check bool
	// Layout are the limits the dry commit's layout loads with.
	Layout layout.Options
	// Renderer makes the renderer of the dry commit's layout (the
	// caller's decrypter and logs are in it).
	Renderer func(repo *layout.Repo) *render.Renderer
	// Options are Hydrate's; Run fills DrySHA, Dir, Previous, Targets and
	// Recorded.
	Options Options
}

// Run is an Action's outcome: the hydration, and what the caller writes
// or checks it against.
type Run struct {
	*Result
	// SHA is the dry commit, Repo its layout.
	SHA  string
	Repo *layout.Repo
	// Cluster is the cluster whose branch Out is a checkout of (Check),
	// "" otherwise; Branches the cluster branches (Branch), nil otherwise.
	Cluster  string
	Branches *scope.Branches
}

// InputError is a problem with what the Action asks (a revision that is
// not there, an output that is not one, flags that do not go together):
// the CLI's usage error, not a failure of the hydration.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// Run hydrates as a asks: it reads the dry commit's layout from Git,
// refuses an output it must not write, chooses the targets, reads the
// output as it stands (the Secrets' ciphertext to keep, what it recorded,
// a checkout of one cluster's branch) and renders. Targets that fail are
// in the Run's Errors; nothing is written.
func (a Action) Run(ctx context.Context) (*Run, error) {
	if a.ChangedSince != "" && a.Check {
		return nil, inputErr("--check hydrates every target: do not combine it with --changed-since")
	}
	dry := a.Dry
	if dry == "" && a.Check && a.Out != "" {
		switch sha, err := DrySHA(a.Out); {
		case err == nil:
			dry = sha
		case !errors.Is(err, fs.ErrNotExist):
			return nil, inputErr("--check hydrates the dry commit %w; fix the file, or give the commit with --dry", err)
		}
	}
	dry = cmp.Or(dry, "HEAD")
	at, err := a.Git.At(ctx, dry, a.Layout)
	if err != nil {
		return nil, inputErr("--dry %s: %w", dry, err)
	}
	run := &Run{SHA: at.SHA, Repo: at.Layout}
	if err := a.checkDestination(run.Repo); err != nil {
		return nil, err
	}
	targets, err := a.changedTargets(ctx, run)
	if err != nil {
		return nil, err
	}
	prev := fs.FS(os.DirFS(a.Out))
	if a.Branch != "" {
		run.Branches = a.Git.Branches(a.Branch)
		prev = run.Branches
	}
	rec, err := a.recorded(run.Repo, prev)
	if err != nil {
		return nil, err
	}
	if rec.Cluster != "" { // a checkout of one cluster's branch: hydrate that cluster
		run.Cluster, prev, targets = rec.Cluster, Checkout(prev, rec.Cluster), []string{}
		for _, t := range run.Repo.TargetsOf(rec.Cluster) {
			targets = append(targets, t.Name())
		}
	}
	opts := a.Options
	opts.DrySHA, opts.Dir, opts.Previous, opts.Targets, opts.Recorded = run.SHA, cmp.Or(a.Git.Dir(), "."), prev, targets, rec.Secrets
	if run.Result, err = Hydrate(ctx, a.Renderer(run.Repo), run.Repo, opts); err != nil {
		return nil, &InputError{err}
	}
	return run, nil
}

// checkDestination refuses a branch prefix that makes invalid branch
// names, and an Out that is Git's directory or a folder the layout owns
// (Check writes nothing: any folder may be checked).
func (a Action) checkDestination(repo *layout.Repo) error {
	var err error
	switch {
	case a.Branch != "":
		err = CheckPrefix(repo, a.Branch)
	case !a.Check:
		err = CheckOut(a.Out, a.Git.Root(), a.Root, repo.Folders()...)
	}
	if err != nil {
		return &InputError{err}
	}
	return nil
}

// changedTargets are the targets the change from ChangedSince to the dry
// commit affects, and those whose Secrets' key it changed; nil (every
// target) without ChangedSince or when that revision has no layout to
// compare with.
func (a Action) changedTargets(ctx context.Context, run *Run) ([]string, error) {
	if a.ChangedSince == "" {
		return nil, nil
	}
	base, err := a.Git.At(ctx, a.ChangedSince, a.Layout)
	switch {
	case base == nil:
		return nil, inputErr("--changed-since %s: %w", a.ChangedSince, err)
	case err != nil:
		return nil, nil // nothing to compare with: hydrate everything
	}
	changed, err := a.Git.Changed(a.ChangedSince, run.SHA)
	if err != nil {
		return nil, &InputError{err}
	}
	targets := EncryptedBy(run.Repo, a.Options.Secrets, changed)
	for _, t := range scope.Touched(base.Layout, run.Repo, changed) {
		if !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	return targets, nil
}

// recorded is what the output says it was hydrated with, for Check
// (nothing otherwise): each cluster's secrets mode and, for a checkout of
// one cluster's branch, that cluster.
func (a Action) recorded(repo *layout.Repo, prev fs.FS) (*Recording, error) {
	if !a.Check {
		return &Recording{}, nil
	}
	if a.Out != "" {
		rec, err := Record(prev)
		if err != nil {
			return nil, inputErr("--check %s: %w", a.Out, err)
		}
		return rec, nil
	}
	all := &Recording{Secrets: map[string]SecretsMode{}}
	for _, c := range repo.Clusters {
		sub, err := fs.Sub(prev, c.Name)
		if err != nil {
			return nil, err
		}
		rec, err := Record(sub)
		if err != nil {
			return nil, inputErr("--check: the branch %s%s %w", a.Branch, c.Name, err)
		}
		maps.Copy(all.Secrets, rec.Secrets)
	}
	return all, nil
}
