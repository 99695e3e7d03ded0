package scope

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/gitrev"
	"github.com/repotool/repotool/pkg/layout"
)

// Sides are the two sides of a comparison: Base, and Head (a revision,
// Git's index, or else the working tree), with the paths that differ
// between them (what diff.Run and Affected take) and Head's name for the
// output.
type Sides struct {
	// Base is nil when it could not be loaded and SidesOptions.AnyBase
	// tolerates it.
	Base, Head *layout.Repo
	Changed    []string
	HeadName   string
}

// SidesOptions say what LoadSides compares.
type SidesOptions struct {
	// Base is the base revision; Head the head revision, or "" for the
	// working tree, or Git's index with Staged (Head must then be "").
	Base, Head string
	Staged     bool
	// AnyBase leaves Sides.Base nil, instead of failing, for a base
	// revision whose layout cannot be loaded (an invalid repotool.yaml
	// being fixed), or a staged comparison with the HEAD of a repository
	// that has no commit yet.
	AnyBase bool
	// Layout configures the loading of both sides; its Ignored only that
	// of the working tree.
	Layout layout.Options
	// Repo is the Git repository holding root, when the caller has
	// opened it already (for Layout.Ignored, say): Git's index is then
	// read once for both. Nil opens it.
	Repo *Repo
}

// LoadSides loads the two sides of a comparison of the Git repository at
// root, reading revisions and the index in process. Every error is the
// caller's to fix (a revision that does not exist, a layout that cannot
// be loaded): the CLI reports them as usage errors. The two layouts hold
// what they have in common once (layout.Repo.Share).
func LoadSides(ctx context.Context, root string, opts SidesOptions) (*Sides, error) {
	s, err := loadSides(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	s.Base.Share(s.Head)
	return s, nil
}

func loadSides(ctx context.Context, root string, opts SidesOptions) (*Sides, error) {
	if opts.Staged && opts.Head != "" {
		return nil, fmt.Errorf("compare the index or a head revision with %s, not both", opts.Base)
	}
	if opts.Repo == nil {
		var err error
		if opts.Repo, err = Open(root); err != nil {
			return nil, err
		}
	}
	repo := opts.Repo.git
	revision := opts.Layout
	revision.Ignored = nil // what Git ignores is a question about the working tree only
	load := func(fsys fs.FS, name string) (*layout.Repo, error) {
		l, err := layout.Load(ctx, fsys, revision)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return l, nil
	}
	s := &Sides{HeadName: cmp.Or(opts.Head, "working tree")}
	baseFS, err := repo.Revision(opts.Base)
	switch {
	case err != nil && opts.AnyBase && opts.Staged && opts.Base == "HEAD" && gitrev.IsUnborn(err):
		// The first commit: there is no HEAD, everything staged is new.
		baseFS = fstest.MapFS{}
	case err != nil:
		return nil, err
	default:
		if !opts.Staged && opts.Head == "" {
			// The paths that differ first, then Git's index let go: read
			// beside both sides' layouts, it set the peak at 20,000
			// targets (some 15 MB held, and go-git's decoding of it).
			if s.Changed, err = workTreeChanges(repo, root, baseFS, opts.Layout.Ignored); err != nil {
				return nil, err
			}
		}
		// One side at a time: two loads at once took a third more memory
		// at 20,000 targets (each one's files in flight, beside the
		// other's), for a fifth of the time.
		if s.Base, err = load(baseFS, opts.Base); err != nil && !opts.AnyBase {
			return nil, err
		}
	}
	if !opts.Staged && opts.Head == "" {
		if err := s.loadWorkTree(ctx, root, opts.Layout); err != nil {
			return nil, err
		}
		return s, nil
	}
	if opts.Staged {
		idx, err := repo.Index()
		if err != nil {
			return nil, err
		}
		if s.Head, err = load(idx, "the index"); err != nil {
			return nil, err
		}
		if s.Changed, err = gitrev.Diff(baseFS, idx); err != nil {
			return nil, err
		}
		s.HeadName = "index"
		return s, nil
	}
	headFS, err := repo.Revision(opts.Head)
	if err != nil {
		return nil, err
	}
	if s.Head, err = load(headFS, opts.Head); err != nil {
		return nil, err
	}
	if s.Changed, err = repo.Changed(opts.Base, opts.Head); err != nil {
		return nil, err
	}
	return s, nil
}

// workTreeChanges are the paths in which the working tree at root differs
// from baseFS, leaving out what Git ignores (no change Git, or Argo CD,
// would see); Git's index, read for them, is let go.
func workTreeChanges(repo *gitrev.Repo, root string, baseFS fs.FS, ignored func(string) bool) ([]string, error) {
	defer repo.ReleaseIndex()
	changed, err := repo.WorkTreeDiff(baseFS, os.DirFS(root))
	if err != nil || ignored == nil {
		return changed, err
	}
	return slices.DeleteFunc(changed, ignored), nil
}

// loadWorkTree loads the working tree at root as Head.
func (s *Sides) loadWorkTree(ctx context.Context, root string, opts layout.Options) error {
	var err error
	if s.Head, err = layout.LoadDir(ctx, root, opts); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return fmt.Errorf("invalid configuration: %w", err)
		}
		return err
	}
	return nil
}
