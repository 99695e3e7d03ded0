package argocd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/golden"
	"github.com/repotool/repotool/pkg/argocd"
)

// permissionTable is testdata/permissions.yaml.
type permissionTable struct {
	Projects     []argocd.AppProject             `json:"projects"`
	Objects      []argocd.GroupKind              `json:"objects"`
	Namespaces   []string                        `json:"namespaces"`
	Destinations []argocd.ApplicationDestination `json:"destinations"`
}

// TestPermissionTable answers every question of testdata/permissions.yaml
// with AppProject.Permits, for its projects and for every AppProject
// generated for the fixture, into permissions.golden. The argocdcheck
// module asks Argo CD's own AppProject methods the same questions and
// requires the same answers, line by line.
func TestPermissionTable(t *testing.T) {
	data, err := os.ReadFile("testdata/permissions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var table permissionTable
	if err := yaml.UnmarshalStrict(data, &table); err != nil {
		t.Fatal(err)
	}
	type named struct {
		id string
		p  argocd.AppProject
	}
	var projects []named
	for _, p := range table.Projects {
		projects = append(projects, named{p.Metadata.Name, p})
	}
	files, err := filepath.Glob("testdata/golden/*-cluster/appproject-*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("generated projects: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p argocd.AppProject
		if err := yaml.UnmarshalStrict(data, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		projects = append(projects, named{strings.TrimPrefix(filepath.ToSlash(f), "testdata/golden/"), p})
	}
	var out strings.Builder
	out.WriteString("# project\tgroup\tkind\tnamespace\tdestination\tanswer (go test ./pkg/argocd -run TestPermissionTable -update)\n")
	refused := 0
	for _, p := range projects {
		for _, gk := range table.Objects {
			for _, ns := range table.Namespaces {
				for _, d := range table.Destinations {
					dest := "server=" + d.Server
					if d.Name != "" {
						dest = "name=" + d.Name
					}
					answer := "permitted"
					if err := p.p.Permits(gk, ns, d); err != nil {
						answer = "refused: " + err.Error()
						refused++
					}
					fmt.Fprintf(&out, "%s\t%s\t%s\t%s\t%s\t%s\n", p.id, gk.Group, gk.Kind, ns, dest, answer)
				}
			}
		}
	}
	if refused == 0 {
		t.Fatal("no question refused: the table tests nothing")
	}
	golden.Check(t, "testdata/permissions.golden", []byte(out.String()))
}
