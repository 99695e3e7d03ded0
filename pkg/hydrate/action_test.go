package hydrate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// TestAction: a whole hydration as the command asks for one. Into a
// folder; checked against it, the dry commit read from its
// hydrator.metadata; after a change to one target, only that target with
// --changed-since; and what is asked wrongly is an InputError, with
// nothing rendered.
func TestAction(t *testing.T) {
	testtool.Require(t, "git")
	repoDir := twoTargets(t)
	testtool.GitCommit(t, repoDir, "dry one")
	git, err := scope.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	action := func(a hydrate.Action) (*hydrate.Run, error) {
		t.Helper()
		a.Git, a.Root = git, repoDir
		a.Renderer = func(repo *layout.Repo) *render.Renderer { return render.New(repo, render.DefaultOptions()) }
		run, err := a.Run(context.Background())
		if err == nil {
			t.Cleanup(func() { run.Close() })
		}
		return run, err
	}
	run, err := action(hydrate.Action{Out: out})
	if err != nil || len(run.Errors) != 0 || run.Len() == 0 {
		t.Fatalf("hydrate: %v, %v", err, run)
	}
	if _, err := run.Sync(out); err != nil {
		t.Fatal(err)
	}
	check, err := action(hydrate.Action{Out: out, Check: true})
	if err != nil || check.SHA != run.SHA {
		t.Fatalf("check: %v, dry commit %s, want %s", err, check.SHA, run.SHA)
	}
	if rep, err := check.Check(os.DirFS(out), check.Cluster); err != nil || rep.Len() != 0 {
		t.Errorf("the output is not its own hydration: %+v, %v", rep, err)
	}
	testtool.WriteFiles(t, repoDir, map[string]string{"clusters/prd/a/prd-values-a.yaml": "v: three\n"})
	testtool.GitCommit(t, repoDir, "dry two")
	changed, err := action(hydrate.Action{Out: out, ChangedSince: run.SHA})
	if err != nil || !slices.Equal(changed.Kept, []string{"dev/a"}) {
		t.Errorf("--changed-since: %v, kept %v, want dev/a", err, changed.Kept)
	}
	for name, a := range map[string]hydrate.Action{
		"no such commit":           {Out: out, Dry: "no-such-revision"},
		"check and changed-since":  {Out: out, Check: true, ChangedSince: run.SHA},
		"out in the layout":        {Out: filepath.Join(repoDir, "clusters")},
		"a branch prefix of refs/": {Branch: "refs/heads/x"},
	} {
		_, err := action(a)
		var ie *hydrate.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an InputError", name, err)
		}
	}
}
