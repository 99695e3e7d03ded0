package argocdcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/git"
	utilio "github.com/argoproj/argo-cd/v3/util/io"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

const appsRepo = "../../testdata/apps"

// appsNoSOPS is the one Application of testdata/apps that reads a SOPS
// file, which the repo-server alone (without a helm-secrets plugin) does
// not decrypt: repotool's parity with helm covers it (pkg/render).
const appsNoSOPS = "prod/guestbook"

// TestApplicationManifests: each Application of testdata/apps, decoded
// strictly into Argo CD's own type, rendered by Argo CD 3.6's repo-server
// (reposerver/repository.GenerateManifests, with the helm CLI of the main
// module's go.mod on its PATH), gives the objects repotool renders for its
// target (cmd/repotool/cli's goldens apps-render-<cluster>-<name>.txt).
func TestApplicationManifests(t *testing.T) {
	bin := buildHelm(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	home := t.TempDir()
	for _, v := range []string{"HOME", "HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"} {
		t.Setenv(v, home)
	}
	repo := filepath.Join(t.TempDir(), "apps")
	if err := os.CopyFS(repo, os.DirFS(appsRepo)); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(repo, "argocd", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Applications in %s: %v", appsRepo, err)
	}
	compared := 0
	for _, f := range files {
		cluster := filepath.Base(filepath.Dir(f))
		for _, app := range readApplications(t, f) {
			name := cluster + "/" + app.Name
			if name == appsNoSOPS {
				continue
			}
			t.Run(name, func(t *testing.T) {
				golden := filepath.Join("..", "..", "cmd", "repotool", "cli", "testdata", "golden", "apps-render-"+cluster+"-"+app.Name+".txt")
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v: run go test ./cmd/repotool/cli -run TestApplicationsRepository -update in the main module", err)
				}
				got := repoServerObjects(t, repo, app, cluster)
				if diff := compareObjects(t, got, want); diff != "" {
					t.Error(diff)
				}
			})
			compared++
		}
	}
	if compared != 5 {
		t.Errorf("compared %d Applications, want 5", compared)
	}
}

// repoServerObjects renders app as the repo-server does, each object as
// canonical JSON, sorted.
func repoServerObjects(t *testing.T, repo string, app *v1alpha1.Application, cluster string) []string {
	t.Helper()
	src := app.Spec.Source
	paths := utilio.NewRandomizedTempPaths(t.TempDir())
	refs := map[string]*v1alpha1.RefTarget{}
	if app.Spec.HasMultipleSources() {
		// As the repo-server is asked for the source that renders, with
		// the ref sources checked out (here: this repository) beside it.
		for i := range app.Spec.Sources {
			s := &app.Spec.Sources[i]
			if s.Ref != "" {
				refs["$"+s.Ref] = &v1alpha1.RefTarget{Repo: v1alpha1.Repository{Repo: s.RepoURL}, TargetRevision: s.TargetRevision}
				paths.Add(git.NormalizeGitURL(s.RepoURL), repo)
			}
			if s.Path != "" {
				src = s
			}
		}
	}
	q := &apiclient.ManifestRequest{
		Repo:               &v1alpha1.Repository{Repo: src.RepoURL},
		ApplicationSource:  src,
		AppName:            app.Name,
		Namespace:          app.Spec.Destination.Namespace,
		ProjectName:        app.Spec.Project,
		KubeVersion:        "1.35.0", // repotool.yaml's defaults.kubeVersion
		HasMultipleSources: app.Spec.HasMultipleSources(),
		RefSources:         refs,
	}
	if cluster == "prod" {
		q.ApiVersions = []string{"monitoring.coreos.com/v1"} // clusters.prod.apiVersions
	}
	res, err := repository.GenerateManifests(context.Background(), filepath.Join(repo, src.Path), repo, "main", q, true,
		git.NoopCredsStore{}, resource.MustParse("0"), paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range res.Manifests {
		out = append(out, canonical(t, []byte(m)))
	}
	slices.Sort(out)
	return out
}

// compareObjects compares Argo CD's objects with those of repotool's
// rendering stream; "" when they are the same.
func compareObjects(t *testing.T, argo []string, stream []byte) string {
	t.Helper()
	var mine []string
	dec := yamlv3.NewDecoder(bytes.NewReader(stream))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if doc == nil {
			continue
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, canonical(t, data))
	}
	slices.Sort(mine)
	if slices.Equal(argo, mine) {
		return ""
	}
	return "the repo-server's objects differ from repotool's:\n--- argo cd\n" + strings.Join(argo, "\n") + "\n--- repotool\n" + strings.Join(mine, "\n")
}

func canonical(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// readApplications decodes the Applications of file strictly (a field
// Argo CD does not know is an error), leaving other kinds.
func readApplications(t *testing.T, file string) []*v1alpha1.Application {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []*v1alpha1.Application
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind != "Application" {
			continue
		}
		var app v1alpha1.Application
		if err := yaml.UnmarshalStrict([]byte(doc), &app); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, &app)
	}
	return out
}

// buildHelm builds the helm CLI that the main module pins (its go.mod),
// in the main module, into a folder of the test's: the helm the
// repo-server runs.
func buildHelm(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "helm"), "helm.sh/helm/v3/cmd/helm")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build helm in the main module: %v\n%s", err, out)
	}
	return dir
}
