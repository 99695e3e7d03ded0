package argocdcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/controller/hydrator"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"
)

// TestHydratedSources: the Applications generate makes with argocd.source
// hydrated and source-hydrator (pkg/argocd/testdata/golden-sources) decode
// strictly into Argo CD's types, pass its CRD schema, and pass what Argo
// CD's hydrator checks before it hydrates (controller/hydrator's
// validateApplications, with its exported parts): the project permits the
// dry source and the destination, no Application hydrates to the
// repository's root, and no two share a destination path. A hydrated
// Application's directory source is permitted by its project too.
func TestHydratedSources(t *testing.T) {
	schema := loadCRD(t, "application-crd.yaml", "v1alpha1")
	dirs, err := filepath.Glob(filepath.Join("..", "..", "pkg", "argocd", "testdata", "golden-sources", "*", "*"))
	if err != nil || len(dirs) < 4 {
		t.Fatalf("found %v (%v); run go test ./pkg/argocd -update in the main module", dirs, err)
	}
	for _, dir := range dirs {
		source := filepath.Base(filepath.Dir(dir))
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		projects := map[string]*v1alpha1.AppProject{}
		var apps []*v1alpha1.Application
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasPrefix(filepath.Base(f), "appproject-"):
				var p v1alpha1.AppProject
				if err := yaml.UnmarshalStrict(data, &p); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				projects[p.Name] = &p
			default:
				var app v1alpha1.Application
				if err := yaml.UnmarshalStrict(data, &app); err != nil {
					t.Fatalf("%s: not a valid Argo CD Application: %v", f, err)
				}
				for _, p := range schema.check(data) {
					t.Errorf("%s: %s", f, p)
				}
				if app.Name != "root" {
					apps = append(apps, &app)
				}
			}
		}
		paths := map[string]string{}
		for _, app := range apps {
			proj := projects[app.Spec.Project]
			if proj == nil {
				t.Errorf("%s/%s: no AppProject %s", dir, app.Name, app.Spec.Project)
				continue
			}
			switch source {
			case "hydrated":
				src := app.Spec.Source
				if src == nil || src.Directory == nil || src.Plugin != nil || !proj.IsSourcePermitted(*src) || hydrator.IsRootPath(src.Path) {
					t.Errorf("%s/%s: source %+v", dir, app.Name, src)
				}
			case "source-hydrator":
				if app.Spec.SourceHydrator == nil || app.Spec.Source != nil {
					t.Errorf("%s/%s: no sourceHydrator", dir, app.Name)
					continue
				}
				dry := app.Spec.SourceHydrator.GetDrySource()
				to := app.Spec.GetHydrateToSource()
				switch {
				case dry.Plugin == nil || !proj.IsSourcePermitted(dry):
					t.Errorf("%s/%s: dry source %+v not permitted", dir, app.Name, dry)
				case hydrator.IsRootPath(to.Path):
					t.Errorf("%s/%s: hydrates to the repository's root", dir, app.Name)
				case !proj.IsSourcePermitted(to):
					t.Errorf("%s/%s: destination %+v not permitted", dir, app.Name, to)
				case paths[to.RepoURL+" "+to.Path] != "":
					t.Errorf("%s/%s: the destination path %s is %s's too", dir, app.Name, to.Path, paths[to.RepoURL+" "+to.Path])
				}
				paths[to.RepoURL+" "+to.Path] = app.Name
				if sync := app.Spec.SourceHydrator.GetSyncSource(); sync.TargetRevision == to.TargetRevision {
					t.Errorf("%s/%s: hydrateTo is the sync branch", dir, app.Name)
				}
			}
		}
		if len(apps) < 3 {
			t.Errorf("%s: %d Applications", dir, len(apps))
		}
	}
}
