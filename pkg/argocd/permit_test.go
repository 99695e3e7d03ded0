package argocd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
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

// TestExcluded: Argo CD's built-in exclusions always apply; argocd-cm's
// are Argo CD 3's defaults unless repotool.yaml mirrors its own, whose
// clusters match the destination server (or the name when there is no
// server), groups by glob and kinds exactly or "*".
func TestExcluded(t *testing.T) {
	c1 := &layout.Cluster{Name: "c1", Destination: config.Destination{Server: "https://c1.example.com"}}
	named := &layout.Cluster{Name: "c2", Destination: config.Destination{Name: "in-cluster"}}
	own := &config.Config{ArgoCD: config.ArgoCDConfig{ResourceExclusions: []config.ResourceFilter{
		{APIGroups: []string{"*.example.io"}, Kinds: []string{"*"}, Clusters: []string{"https://c1.*"}},
		{Kinds: []string{"Endpoints"}, Clusters: []string{"in-*"}},
	}}}
	none := &config.Config{ArgoCD: config.ArgoCDConfig{ResourceExclusions: []config.ResourceFilter{}}}
	for _, tc := range []struct {
		cfg         *config.Config
		cl          *layout.Cluster
		group, kind string
		want, core  bool
	}{
		{&config.Config{}, c1, "", "Endpoints", true, false},
		{&config.Config{}, c1, "discovery.k8s.io", "EndpointSlice", true, false},
		{&config.Config{}, c1, "cert-manager.io", "CertificateRequest", true, false},
		{&config.Config{}, c1, "cert-manager.io", "Certificate", false, false},
		{&config.Config{}, c1, "apiregistration.k8s.io", "APIService", false, false}, // excluded in a 3.0 release candidate only
		{&config.Config{}, c1, "", "Service", false, false},
		{&config.Config{}, c1, "events.k8s.io", "Event", true, true},
		{&config.Config{}, c1, "metrics.k8s.io", "PodMetrics", true, true},
		{none, c1, "", "Endpoints", false, false},
		{none, c1, "coordination.k8s.io", "Lease", true, true},
		{none, c1, "", "Event", true, true},
		{own, c1, "widgets.example.io", "Widget", true, false},
		{own, named, "widgets.example.io", "Widget", false, false},
		{own, named, "", "Endpoints", true, false},
		{own, c1, "", "Endpoints", false, false},
		{own, c1, "", "Pod", false, false},
	} {
		why, got := argocd.Excluded(tc.cfg, tc.cl, tc.group, tc.kind)
		if got != tc.want || why.Core != tc.core {
			t.Errorf("%s %s/%s on %s: excluded %v (core %v), want %v (core %v)", tc.cfg.ArgoCD.ResourceExclusions, tc.group, tc.kind, tc.cl.Name, got, why.Core, tc.want, tc.core)
		}
	}
}
