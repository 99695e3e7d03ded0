package config_test

import (
	"errors"
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
