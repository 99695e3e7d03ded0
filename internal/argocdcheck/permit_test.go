package argocdcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// TestPermissionTable asks Argo CD's own AppProject.IsResourcePermitted
// every question of pkg/argocd/testdata/permissions.golden, whose answers
// repotool's AppProject.Permits gave, and requires the same answer: the
// projects are decoded into Argo CD's types from the same files.
func TestPermissionTable(t *testing.T) {
	data, err := os.ReadFile("../../pkg/argocd/testdata/permissions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Projects []v1alpha1.AppProject `json:"projects"`
	}
	if err := yaml.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	projects := map[string]v1alpha1.AppProject{}
	for _, p := range table.Projects {
		projects[p.Name] = p
	}
	files, err := filepath.Glob(filepath.Join(goldens, "*-cluster", "appproject-*.yaml"))
	if err != nil || len(files) < 5 {
		t.Fatalf("generated projects: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p v1alpha1.AppProject
		if err := yaml.UnmarshalStrict(data, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(goldens, f)
		projects[filepath.ToSlash(rel)] = p
	}
	answers, err := os.ReadFile("../../pkg/argocd/testdata/permissions.golden")
	if err != nil {
		t.Fatal(err)
	}
	noClusters := func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }
	n := 0
	for i, line := range strings.Split(strings.TrimSpace(string(answers)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("permissions.golden:%d: %d fields", i+1, len(f))
		}
		p, ok := projects[f[0]]
		if !ok {
			t.Fatalf("permissions.golden:%d: no project %s", i+1, f[0])
		}
		// Since Argo CD 3.3 the check takes the object's name (for a
		// cluster-resource list item's name glob; repotool's name none)
		// and the destination's cluster.
		var dest v1alpha1.Cluster
		if server, ok := strings.CutPrefix(f[4], "server="); ok {
			dest.Server = server
		} else {
			dest.Name = strings.TrimPrefix(f[4], "name=")
		}
		got, err := p.IsResourcePermitted(schema.GroupKind{Group: f[1], Kind: f[2]}, "example", f[3], &dest, noClusters)
		if err != nil {
			t.Fatalf("permissions.golden:%d: %v", i+1, err)
		}
		if want := f[5] == "permitted"; got != want {
			t.Errorf("permissions.golden:%d: Argo CD answers permitted=%v, repotool %q", i+1, got, f[5])
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d questions", n)
	}
}
