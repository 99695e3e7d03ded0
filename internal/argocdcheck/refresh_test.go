package argocdcheck

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apppath "github.com/argoproj/argo-cd/v3/util/app/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// refreshFile is written by pkg/scope's TestRefreshSets: the Applications
// generate makes at a base revision, and for each commit the changed
// paths, the Applications only the head revision has, and those that
// deploy the targets repotool diff reports as affected.
const refreshFile = "../../pkg/scope/testdata/refresh.golden.json"

type refreshApp struct {
	Name       string `json:"name"`
	SourcePath string `json:"sourcePath"`
	Paths      string `json:"manifestGeneratePaths"`
}

type refreshCase struct {
	Name    string   `json:"name"`
	Base    string   `json:"base"`
	Changed []string `json:"changed"`
	New     []string `json:"new"`
	Refresh []string `json:"refresh"`
}

// TestRefreshSetsMatchArgoCD asks Argo CD's own code which Applications
// each commit refreshes (GetSourceRefreshPaths on the manifest-generate-paths
// annotation, then AppFilesHaveChanged with the commit's files, as the
// repo-server does before it reuses the manifests it generated for the
// previous commit) and requires exactly the Applications repotool diff
// reports as affected, plus the new ones, which Argo CD renders for the
// first time. One missing is a stale deploy; one too many is a needless
// re-render.
func TestRefreshSetsMatchArgoCD(t *testing.T) {
	data, err := os.ReadFile(refreshFile)
	if err != nil {
		t.Fatal(err)
	}
	var sets struct {
		Bases map[string][]refreshApp `json:"bases"`
		Cases []refreshCase           `json:"cases"`
	}
	if err := json.Unmarshal(data, &sets); err != nil {
		t.Fatal(err)
	}
	if len(sets.Cases) < 20 || len(sets.Bases["fixture"]) < 10 {
		t.Fatalf("%s holds %d cases and %d Applications: regenerate it with pkg/scope's TestRefreshSets -update", refreshFile, len(sets.Cases), len(sets.Bases["fixture"]))
	}
	refreshed := 0
	for _, c := range sets.Cases {
		apps, ok := sets.Bases[c.Base]
		if !ok {
			t.Fatalf("%s: no base %q", c.Name, c.Base)
		}
		got := slices.Clone(c.New)
		for _, a := range apps {
			if a.Paths == "" {
				t.Errorf("%s: Application %s has no manifest-generate-paths: Argo CD refreshes it on every commit", c.Base, a.Name)
			}
			app := &v1alpha1.Application{
				ObjectMeta: metav1.ObjectMeta{Name: a.Name, Annotations: map[string]string{v1alpha1.AnnotationKeyManifestGeneratePaths: a.Paths}},
				Spec:       v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{Path: a.SourcePath}},
			}
			if apppath.AppFilesHaveChanged(apppath.GetSourceRefreshPaths(app, *app.Spec.Source), c.Changed) {
				got = append(got, a.Name)
			}
		}
		got = slices.Compact(slices.Sorted(slices.Values(got)))
		if !slices.Equal(got, c.Refresh) {
			t.Errorf("%s (changed %v):\nArgo CD refreshes %v\nrepotool diff affects %v", c.Name, c.Changed, got, c.Refresh)
		}
		refreshed += len(got)
	}
	if refreshed == 0 {
		t.Error("no commit refreshes anything")
	}
}
