package migrate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/migrate"
	"github.com/repotool/repotool/pkg/render"
)

// TestUpstreamExamples converts the examples of kubernetes-external-
// secrets' README and examples/ folder. They are not in any Go module the
// tests may download, and fetched material may not be committed: the test
// reads them from ../shared/kes (README.md and examples/, as upstream has
// them), or from $REPOTOOL_KES_EXAMPLES, a local copy laid out the same.
// Each README snippet that holds an ExternalSecret becomes a file of its
// own.
func TestUpstreamExamples(t *testing.T) {
	dir := filepath.Join(testtool.ModuleRoot(t), "..", "shared", "kes")
	if d := os.Getenv("REPOTOOL_KES_EXAMPLES"); d != "" {
		dir = d // a local copy, for a developer who has one
	}
	entries, err := os.ReadDir(filepath.Join(dir, "examples"))
	if err != nil {
		t.Skipf("the KES examples are not in %s: %v", dir, err)
	}
	fsys := fstest.MapFS{}
	for _, e := range entries {
		if ext := path.Ext(e.Name()); ext != ".yaml" && ext != ".yml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "examples", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fsys["bootstrap/"+e.Name()] = &fstest.MapFile{Data: data}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	snippets := regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllSubmatch(readme, -1)
	for i, m := range snippets {
		if bytes.Contains(m[1], []byte("kind: ExternalSecret")) {
			fsys[fmt.Sprintf("bootstrap/readme/%02d.yaml", i)] = &fstest.MapFile{Data: m[1]}
		}
	}
	if len(fsys) < 20 {
		t.Fatalf("only %d files read from %s", len(fsys), dir)
	}
	// For ESO 2 (the default) and for ESO 1: every object is converted or
	// refused with why; of the examples/ folder, only the one whose
	// template is lodash code is refused, and for ESO 2 the Alibaba Cloud
	// one (ESO 2.0 removed that provider). What was converted validates
	// against that ESO's CRDs; only refused objects keep KES's
	// stray-api-version.
	for _, tc := range []struct {
		opts    migrate.Options
		crds    fstest.MapFS
		refused []string
	}{
		{migrate.Options{}, eso2CRDs(t), []string{"alicloud-secretsmanager", "template-advanced"}},
		{migrate.Options{ESOVersion: "1"}, esoCRDs(t), []string{"template-advanced"}},
	} {
		res := plan(t, fsys, tc.opts)
		var examples []string
		for _, r := range res.Refused {
			if r.Detail == "" || r.Line == 0 {
				t.Errorf("refused without a reason or a line: %+v", r)
			}
			if !strings.Contains(r.File, "readme") {
				examples = append(examples, strings.TrimSuffix(strings.TrimSuffix(path.Base(r.File), ".yml"), ".yaml"))
			}
		}
		if !slices.Equal(examples, tc.refused) {
			t.Errorf("ESO %q: the examples/ files refused are %v, want %v", tc.opts.ESOVersion, examples, tc.refused)
		}
		if len(res.Converted) == 0 {
			t.Error("nothing converted")
		}
		for _, f := range lintFindings(t, apply(fsys, res), tc.crds, "bootstrap") {
			if !strings.Contains(f, "stray-api-version") || !strings.Contains(f, "kubernetes-client.io") {
				t.Errorf("ESO %q: after the migration: %s", tc.opts.ESOVersion, f)
			}
		}
	}
}

// renderApp renders the target c1/app of fsys.
func renderApp(t *testing.T, fsys fstest.MapFS) string {
	t.Helper()
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	target, ok := repo.Target("c1", "app")
	if !ok {
		t.Fatal("no target c1/app")
	}
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	return string(res.Manifest)
}
