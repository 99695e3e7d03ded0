package diff_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/layout"
)

// TestGeneratedClusters checks that comparing the generated objects of
// only the clusters a change is inside finds every change that comparing
// all of them finds.
func TestGeneratedClusters(t *testing.T) {
	base := testtool.MapFS(t, "../../testdata/monorepo")
	tests := []struct {
		name string
		edit func(fstest.MapFS) []string
		want []string // the clusters compared; nil: all
	}{
		{"values file", func(m fstest.MapFS) []string {
			m["clusters/dev-cluster/namespace-a/dev-values-a.yaml"].Data = []byte("replicas: 3\n")
			return []string{"clusters/dev-cluster/namespace-a/dev-values-a.yaml"}
		}, []string{"dev-cluster"}},
		{"a namespace deployed to one more cluster", func(m fstest.MapFS) []string {
			m["clusters/prod-cluster/namespace-c/prod-values-c.yaml"] = &fstest.MapFile{Data: []byte("a: 1\n")}
			return []string{"clusters/prod-cluster/namespace-c/prod-values-c.yaml"}
		}, []string{"prod-cluster"}},
		{"a target removed", func(m fstest.MapFS) []string {
			var out []string
			for p := range m {
				if strings.HasPrefix(p, "clusters/dev-cluster/namespace-b/") {
					delete(m, p)
					out = append(out, p)
				}
			}
			return out
		}, []string{"dev-cluster"}},
		{"a new cluster", func(m fstest.MapFS) []string {
			m["clusters/qa-cluster/namespace-a/qa-values-a.yaml"] = &fstest.MapFile{Data: []byte("a: 1\n")}
			return []string{"clusters/qa-cluster/namespace-a/qa-values-a.yaml"}
		}, []string{"qa-cluster"}},
		{"a chart's CRD", func(m fstest.MapFS) []string {
			// A security kind becomes cluster-scoped: every cluster's
			// namespaces project changes.
			p := "namespaces/external-secrets/crds/externalsecrets.external-secrets.io.yaml"
			m[p].Data = []byte(strings.Replace(string(m[p].Data), "scope: Namespaced", "scope: Cluster", 1))
			return []string{p}
		}, nil},
		{"the configuration", func(m fstest.MapFS) []string {
			m["repotool.yaml"].Data = []byte(strings.Replace(string(m["repotool.yaml"].Data), "platform-sre", "platform-team", 1))
			return []string{"repotool.yaml"}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var changed []string
			head := testtool.Edited(base, func(m fstest.MapFS) { changed = tt.edit(m) })
			load := func(m fstest.MapFS) *layout.Repo {
				repo, err := layout.Load(context.Background(), m, layout.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return repo
			}
			b, h := load(base), load(head)
			clusters := diff.GeneratedClusters(b, h, changed)
			if !slices.Equal(clusters, tt.want) {
				t.Fatalf("clusters %v, want %v", clusters, tt.want)
			}
			some, sw, serr := diff.CompareGenerated(b, h, clusters)
			all, aw, aerr := diff.CompareGenerated(b, h, nil)
			if serr != nil || aerr != nil {
				t.Fatal(serr, aerr)
			}
			if len(all) == 0 && tt.name != "values file" {
				t.Fatal("the change alters no generated object: the case tests nothing")
			}
			if !reflect.DeepEqual(some, all) || !slices.Equal(sw, aw) {
				t.Errorf("comparing %v: %d changes %v, comparing all: %d changes %v", clusters, len(some), sw, len(all), aw)
			}
		})
	}
}
