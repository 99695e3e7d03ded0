package argocdcheck

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/git"
	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"
)

const (
	appsetsRepo   = "../../testdata/appsets"
	appsetsGolden = "../../cmd/repotool/cli/testdata/golden/appsets-layout-applications.txt"
	argoNamespace = "argocd"
)

// TestApplicationSetExpansion: Argo CD 3.6's own ApplicationSet
// controller code (template.GenerateApplications with the list, clusters,
// git, matrix and merge generators; cluster Secrets made from
// testdata/appsets' repotool.yaml; its git client's ls-files on a Git
// copy of the repository) makes, from each ApplicationSet of
// testdata/appsets, the Applications repotool makes (cmd/repotool/cli's
// golden of layout -o applications): the same names, labels and specs.
func TestApplicationSetExpansion(t *testing.T) {
	repo := gitCopy(t, appsetsRepo)
	files, err := filepath.Glob(filepath.Join(repo, "argocd", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ApplicationSets in %s: %v", appsetsRepo, err)
	}
	var argo []string
	for _, f := range files {
		argo = append(argo, expandWithArgoCD(t, repo, readAppSet(t, f))...)
	}
	slices.Sort(argo)
	mine := repotoolApplications(t)
	if !slices.Equal(argo, mine) {
		t.Errorf("Argo CD's Applications differ from repotool's:\n--- argo cd\n%s\n--- repotool\n%s", strings.Join(argo, "\n"), strings.Join(mine, "\n"))
	}
	if len(mine) != 9 {
		t.Errorf("compared %d Applications, want 9", len(mine))
	}
	// The comparison sees what a field changes: without templatePatch,
	// Argo CD makes other Applications than repotool (api's have no
	// automated sync), and the test would fail.
	set := readAppSet(t, filepath.Join(repo, "argocd", "services.yaml"))
	set.Spec.TemplatePatch = nil
	without := expandWithArgoCD(t, repo, set)
	for _, a := range without {
		if slices.Contains(mine, a) && strings.Contains(a, `"name":"api-`) {
			t.Errorf("without templatePatch Argo CD still makes %s: the comparison would not see an ignored field", a)
		}
	}
}

// expandWithArgoCD is what Argo CD's controller makes of set, each
// Application as canonical JSON of its name, labels and spec.
func expandWithArgoCD(t *testing.T, repo string, set *v1alpha1.ApplicationSet) []string {
	t.Helper()
	c := clusterSecrets(t, repo)
	terminal := map[string]generators.Generator{
		"List":     generators.NewListGenerator(),
		"Clusters": generators.NewClusterGenerator(c, argoNamespace),
		"Git":      generators.NewGitGenerator(lsFiles{root: repo}, argoNamespace),
	}
	nested := map[string]generators.Generator{
		"List": terminal["List"], "Clusters": terminal["Clusters"], "Git": terminal["Git"],
		"Matrix": generators.NewMatrixGenerator(terminal), "Merge": generators.NewMergeGenerator(terminal),
	}
	top := map[string]generators.Generator{
		"List": terminal["List"], "Clusters": terminal["Clusters"], "Git": terminal["Git"],
		"Matrix": generators.NewMatrixGenerator(nested), "Merge": generators.NewMergeGenerator(nested),
	}
	log.SetOutput(io.Discard) // the generators log through logrus' standard logger
	apps, _, err := template.GenerateApplications(log.NewEntry(log.StandardLogger()), *set, top, &utils.Render{}, c)
	if err != nil {
		t.Fatalf("%s: %v", set.Name, err)
	}
	var out []string
	for _, a := range apps {
		out = append(out, appKey(t, a.Name, a.Labels, a.Spec))
	}
	return out
}

// repotoolApplications are the Applications of repotool's golden, as
// expandWithArgoCD gives Argo CD's (decoded strictly into Argo CD's type).
func repotoolApplications(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(appsetsGolden)
	if err != nil {
		t.Fatalf("%v: run go test ./cmd/repotool/cli -run TestApplicationSetsRepository -update in the main module", err)
	}
	var out []string
	for _, doc := range strings.Split(string(data), "---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var a v1alpha1.Application
		if err := yaml.UnmarshalStrict([]byte(doc), &a); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		out = append(out, appKey(t, a.Name, a.Labels, a.Spec))
	}
	slices.Sort(out)
	return out
}

func appKey(t *testing.T, name string, labels map[string]string, spec v1alpha1.ApplicationSpec) string {
	t.Helper()
	if len(labels) == 0 {
		labels = nil // none, as Argo CD's template leaves them, or an empty map
	}
	data, err := json.Marshal(map[string]any{"name": name, "labels": labels, "spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func readAppSet(t *testing.T, file string) *v1alpha1.ApplicationSet {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var set v1alpha1.ApplicationSet
	if err := yaml.UnmarshalStrict(data, &set); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &set
}

// clusterSecrets is a client holding the cluster Secrets of the central
// Argo CD that repo's repotool.yaml describes (a Secret for each cluster
// with a destination name, labelled as it says; the cluster Argo CD runs
// in has none), and the AppProject default, which the git generator reads.
func clusterSecrets(t *testing.T, repo string) client.Client {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "repotool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Clusters map[string]struct {
			Destination struct{ Name, Server string }
			Labels      map[string]string
		}
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs := []client.Object{&v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: argoNamespace}}}
	for name, c := range cfg.Clusters {
		if c.Destination.Name == "" {
			continue
		}
		labels := map[string]string{"argocd.argoproj.io/secret-type": "cluster"}
		for k, v := range c.Labels {
			labels[k] = v
		}
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + name, Namespace: argoNamespace, Labels: labels},
			Data:       map[string][]byte{"name": []byte(c.Destination.Name), "server": []byte(c.Destination.Server)},
		})
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

// lsFiles is the git generator's repository service on a local Git
// repository: files as Argo CD's git client lists them (git ls-files,
// its default globbing), folders as the repo-server walks them (all but
// hidden ones).
type lsFiles struct{ root string }

func (r lsFiles) GetFiles(ctx context.Context, _, _, _, pattern string, _ bool, _ *v1alpha1.SourceIntegrity) (map[string][]byte, error) {
	c, err := git.NewClientExt("file://"+r.root, r.root, git.NopCreds{}, true, false, "", "")
	if err != nil {
		return nil, err
	}
	paths, err := c.LsFiles(ctx, pattern, false)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, p := range paths {
		if out[p], err = os.ReadFile(filepath.Join(r.root, p)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r lsFiles) GetDirectories(context.Context, string, string, string, bool, *v1alpha1.SourceIntegrity) ([]string, error) {
	var out []string
	err := filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case p != r.root:
			rel, _ := filepath.Rel(r.root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

func (lsFiles) GetOciFiles(context.Context, string, string, string, string, bool) (map[string][]byte, error) {
	return nil, os.ErrInvalid
}

func (lsFiles) GetOciDirectories(context.Context, string, string, string, bool) ([]string, error) {
	return nil, os.ErrInvalid
}

// gitCopy is a copy of dir committed to a new Git repository.
func gitCopy(t *testing.T, dir string) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}
