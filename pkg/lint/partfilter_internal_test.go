package lint

import (
	"slices"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
)

// TestPartFilter: a part keeps the findings about its targets, their
// targets cut to its own, and those about no target in the first part
// only (with inFolders, in its targets' folders only); it never changes
// the list of targets it was given, which a rule may hand several
// findings.
func TestPartFilter(t *testing.T) {
	part := []layout.Target{{Cluster: "a", Namespace: "x", Dir: "clusters/a/x", ChartDir: "namespaces/x"}}
	shared := []string{"a/x", "b/x"}
	for _, tc := range []struct {
		name             string
		f                Finding
		first, inFolders bool
		want             bool
		targets          []string
	}{
		{"its target", Finding{Targets: shared}, false, false, true, []string{"a/x"}},
		{"another part's target", Finding{Targets: []string{"b/x"}}, true, false, false, nil},
		{"no target, first part", Finding{File: "repotool.yaml"}, true, false, true, nil},
		{"no target, another part", Finding{File: "repotool.yaml"}, false, false, false, nil},
		{"no target, first part, in its folders", Finding{File: "clusters/a/x/prod-values.yaml"}, true, true, true, nil},
		{"no target, first part, outside its folders", Finding{File: "clusters/b/x/prod-values.yaml"}, true, true, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			if got := partFilter(part, tc.first, tc.inFolders)(&f); got != tc.want || got && !slices.Equal(f.Targets, tc.targets) {
				t.Errorf("kept %v with targets %q; want %v, %q", got, f.Targets, tc.want, tc.targets)
			}
		})
	}
	if !slices.Equal(shared, []string{"a/x", "b/x"}) {
		t.Errorf("the list handed in was changed: %q", shared)
	}
}
