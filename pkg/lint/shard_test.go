package lint_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/internal/testing/synth"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

// shardedEqualsWhole lints repo whole and in n shards, merges the shards'
// reports (through their JSON, as CI hands them over) and requires the
// same findings, in the same order, and the same counts: with the shards
// rendering the others' CRD candidates, and with a CRD inventory made once.
func shardedEqualsWhole(t *testing.T, repo *layout.Repo, opts lint.Options, n int) *lint.Result {
	t.Helper()
	whole, err := lint.Lint(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := lint.Inventory(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	if inv, err = lint.ParseCRDInventory(data); err != nil {
		t.Fatal(err)
	}
	for _, withInventory := range []bool{false, true} {
		o := opts
		if withInventory {
			o.CRDInventory = inv
		}
		if merged := mergedShards(t, repo, o, n); !cmp.Equal(whole.Report, merged.Report) {
			t.Errorf("%d shards (inventory: %v), merged, differ from one run (-whole +merged):\n%s", n, withInventory, cmp.Diff(whole.Report, merged.Report))
		}
	}
	return whole
}

// mergedShards lints repo in n shards and merges their reports.
func mergedShards(t *testing.T, repo *layout.Repo, opts lint.Options, n int) *lint.Result {
	t.Helper()
	var reports []*lint.ShardReport
	for i := n; i >= 1; i-- { // any order
		o := opts
		o.Shard = layout.Shard{I: i, N: n}
		res, err := lint.Lint(context.Background(), repo, o)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(res.ShardReport(o.Shard))
		if err != nil {
			t.Fatal(err)
		}
		sr, err := lint.ParseShardReport(data)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, sr)
	}
	merged, err := lint.Merge(repo, reports)
	if err != nil {
		t.Fatal(err)
	}
	if n == 2 && opts.CRDInventory == nil {
		otherDir := fixture
		if repo.Root == fixture {
			otherDir = filepath.Join(casesDir, "layout", "repo")
		}
		other, _ := loadCase(t, otherDir)
		if _, err := lint.Merge(other, reports); err == nil || !strings.Contains(err.Error(), "another layout") {
			t.Errorf("shards merged over another repository: %v", err)
		}
	}
	return merged
}

// TestShardsMergeExact: a sharded run, merged, reports exactly what one
// run reports, on the fixture, every rule case and a generated
// multi-cluster repository with problems planted across namespaces and
// clusters, in 2, 3 and 7 shards.
func TestShardsMergeExact(t *testing.T) {
	if testing.Short() {
		t.Skip("lints every repository 13 times")
	}
	useTestKey(t)
	planted := plantedRepo(t)
	dirs := []string{fixture, planted}
	cases, err := filepath.Glob(filepath.Join(casesDir, "*", "repo"))
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, cases...)
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		if dir == planted {
			name = "planted"
		}
		t.Run(name, func(t *testing.T) {
			repo, opts := loadCase(t, dir)
			var whole *lint.Result
			for _, n := range []int{2, 3, 7} {
				whole = shardedEqualsWhole(t, repo, opts, n)
			}
			if dir == planted {
				checkPlanted(t, whole)
			}
		})
	}
}

// plantedRepo is a generated repository of 4 clusters, with problems that
// only checks across targets find, planted in different namespaces and
// clusters: the same ClusterRole rendered by two namespaces of one
// cluster, a CRD one cluster's chart templates whose short name another's
// plain CRD claims, a custom object in a cluster whose CRD another
// cluster's chart renders (and a later cluster renders with another
// schema), and a common values key no cluster reads.
func plantedRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Source: fixture, Clusters: 4, Namespaces: 3}); err != nil {
		t.Fatal(err)
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "namespaces"))
	if err != nil {
		t.Fatal(err)
	}
	var apps []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, "namespaces", e.Name(), "templates")); err == nil && e.Name() != "cert-manager" && e.Name() != "external-secrets" {
			apps = append(apps, e.Name())
		}
	}
	if len(apps) < 2 {
		t.Fatalf("generated namespaces %v", apps)
	}
	role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: planted-reader\nrules: []\n"
	write("namespaces/"+apps[0]+"/templates/planted-role.yaml", role)
	write("namespaces/"+apps[1]+"/templates/planted-role.yaml", role)
	write("namespaces/"+apps[0]+"/templates/planted-crd.yaml", `{{- if eq .Values.plantedCRD true }}
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.planted.example.com
spec:
  group: planted.example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [pw]}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: {{ .Values.plantedSizeType | default "integer" }}}}}
{{- end }}
`)
	write("bootstrap/gadgets-crd.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.other.example.com
spec:
  group: other.example.com
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets, singular: gadget, shortNames: [pw]}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object}
`)
	write("namespaces/"+apps[1]+"/templates/planted-widget.yaml", "apiVersion: planted.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: \"big\"\n")
	write("clusters/cluster-002/"+apps[0]+"/cluster-002-values-planted.yaml", "plantedCRD: true\n")
	// A later cluster renders the CRD of the same name with another
	// schema: the first in target order is the one every part takes.
	write("clusters/cluster-003/"+apps[0]+"/cluster-003-values-planted.yaml", "plantedCRD: true\nplantedSizeType: string\n")
	write("namespaces/"+apps[1]+"/common-values-planted.yaml", "plantedTypo: 1\n")
	return dir
}

// checkPlanted requires the findings plantedRepo plants: each is one a
// shard would miss without the whole cluster, the whole CRD inventory or
// the merge.
func checkPlanted(t *testing.T, res *lint.Result) {
	t.Helper()
	want := map[string]string{
		"duplicate-object":    "planted-reader",
		"shortname-collision": "pw",
		"values-unused":       "plantedTypo",
		"schema":              "Widget",
	}
	for rule, word := range want {
		found := false
		for _, f := range res.Findings {
			found = found || f.Rule == rule && strings.Contains(f.Message+f.Object, word)
		}
		if !found {
			t.Errorf("the planted %s finding about %s is missing", rule, word)
		}
	}
}
