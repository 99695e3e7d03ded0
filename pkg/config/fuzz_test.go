package config_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/config"
)

// FuzzParse checks that no input makes the repotool.yaml parser panic,
// and that every rejection is a *config.Error naming the file.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"git:\n  repoURL: https://example.com/x.git\n  revision: main\n",
		"defaults:\n  kubeVersion: v1.33.0\n  apiVersions: [a.b/v1]\n",
		"clusters:\n  dev:\n    kubeVersion: v1.30.0\n    destination: {server: https://x, name: dev}\n",
		"namespaces:\n  argocd: {tier: cluster}\n",
		"layout:\n  namespacesDir: apps\n  clusterValues: ['*.yaml']\n  secretSuffixes: [.enc.yaml]\n",
		"clusters: [1, 2]\n",
		"&a [*a]",
		"a: &a {b: *a}\n",
		"--- !!binary AAAA\n",
		"layout:\n  targets: projects/{team}/{namespace}/{cluster}\n  clusterWideValues: [values-*.yaml]\n",
		"namespaces:\n  a: {chart: charts/x}\ndefaults:\n  values:\n    '*': [a.yaml, 'c/{cluster}/{namespace}.yaml']\n",
		"clusters:\n  c:\n    values:\n      a: [x.yaml, x.yaml]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := config.Parse("repotool.yaml", data)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "repotool.yaml") {
				t.Fatalf("error is not a config.Error naming the file: %v", err)
			}
			return
		}
		if cfg.Layout.NamespacesDir == "" || cfg.Layout.ClustersDir == "" || len(cfg.Layout.SecretSuffixes) == 0 {
			t.Fatalf("accepted config lost its layout defaults: %+v", cfg.Layout)
		}
	})
}

// FuzzTargetTemplate checks that layout.targets' parser never panics, and
// that a template it accepts names {cluster} and {namespace} once each,
// within the folder limit, and fills its prefixes from the parts.
func FuzzTargetTemplate(f *testing.F) {
	for _, seed := range []string{"clusters/{cluster}/{namespace}", "projects/{team}/{namespace}/{cluster}/{env}", "{cluster}/{namespace}",
		"a/{cluster}/{cluster}/{namespace}", "a/../{cluster}/{namespace}", "a/{Cluster}/{namespace}", "a/x{cluster}/{namespace}", "", "/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := config.ParseTargetTemplate(s)
		if err != nil {
			return
		}
		c, n := tpl.Index(config.PartCluster), tpl.Index(config.PartNamespace)
		if c < 0 || n < 0 || len(tpl.Segments) > config.MaxTemplateSegments {
			t.Fatalf("accepted %q: cluster at %d, namespace at %d, %d folders", s, c, n, len(tpl.Segments))
		}
		parts := map[string]string{}
		for i := range tpl.Segments {
			if p := tpl.Part(i); p != "" {
				parts[p] = "x"
			}
		}
		if got := tpl.Prefix(len(tpl.Segments), parts); strings.Contains(got, "{") || strings.Count(got, "/") != len(tpl.Segments)-1 {
			t.Fatalf("%q filled in is %q", s, got)
		}
		if got, ok := tpl.Match(tpl.Prefix(len(tpl.Segments), parts)); !ok || !maps.Equal(got, parts) {
			t.Fatalf("%q does not match its own folder: %v, %v", s, got, ok)
		}
		if _, ok := tpl.Match(tpl.Prefix(len(tpl.Segments)-1, parts)); ok {
			t.Fatalf("%q matches a folder above its targets'", s)
		}
	})
}
