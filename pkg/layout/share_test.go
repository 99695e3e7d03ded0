package layout_test

import (
	"encoding/json"
	"maps"
	"testing"
	"unsafe"

	"github.com/repotool/repotool/pkg/layout"
)

// TestShare: a layout sharing another's strings and values lists says
// what it said (its JSON byte for byte), and holds the other's where they
// are equal: a target's folder and values list when the two revisions
// agree, the paths alike of a values list that changed.
func TestShare(t *testing.T) {
	files := map[string]string{
		"namespaces/app/Chart.yaml":                 chart,
		"namespaces/app/common-values-app.yaml":     "a: 1\n",
		"namespaces/web/Chart.yaml":                 chart,
		"clusters/prod/app/prod-values-app.yaml":    "b: 2\n",
		"clusters/prod/web/prod-values-web.yaml":    "c: 3\n",
		"clusters/stage/app/stage-values-app.yaml":  "d: 4\n",
		"clusters/stage/web/stage-values-web.yaml":  "e: 5\n",
		"clusters/stage/web/stage-values-more.yaml": "f: 6\n",
	}
	base := load(t, files)
	headFiles := maps.Clone(files)
	delete(headFiles, "clusters/stage/web/stage-values-more.yaml")
	headFiles["clusters/dev/app/dev-values-app.yaml"] = "g: 7\n"
	head := load(t, headFiles)

	before, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	base.Share(head)
	base.Share(nil)
	if after, err := json.Marshal(base); err != nil || string(after) != string(before) {
		t.Fatalf("the layout changed when it shared:\n%s\nwas\n%s (%v)", after, before, err)
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	target := func(r *layout.Repo, name string) *layout.Target {
		for i := range r.Targets {
			if r.Targets[i].Name() == name {
				return &r.Targets[i]
			}
		}
		t.Fatalf("no target %s", name)
		return nil
	}
	b, h := target(base, "prod/app"), target(head, "prod/app")
	if !same(b.Dir, h.Dir) || !same(b.ChartDir, h.ChartDir) || &b.Values[0] != &h.Values[0] {
		t.Error("prod/app, alike at both revisions, holds its own folder, chart folder or values list")
	}
	b, h = target(base, "stage/web"), target(head, "stage/web")
	if len(b.Values) == len(h.Values) || &b.Values[0] == &h.Values[0] {
		t.Fatalf("stage/web's values lists %v and %v: want two lists", b.Values, h.Values)
	}
	for _, v := range b.Values {
		for _, w := range h.Values {
			if v.Path == w.Path && !same(v.Path, w.Path) {
				t.Errorf("stage/web's values file %s held twice", v.Path)
			}
		}
	}
}
