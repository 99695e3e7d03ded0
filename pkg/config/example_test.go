package config_test

import (
	"fmt"

	"github.com/repotool/repotool/pkg/config"
)

// Parse a repotool.yaml and ask for a cluster's Kubernetes version.
func ExampleParse() {
	cfg, _, err := config.Parse("repotool.yaml", []byte(`
defaults:
  kubeVersion: v1.33.0
clusters:
  legacy:
    kubeVersion: v1.30.4
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.ClusterKubeVersion("legacy"), cfg.ClusterKubeVersion("other"))
	_, _, err = config.Parse("repotool.yaml", []byte("clusters:\n  legacy:\n    kubeversion: v1.30.4\n"))
	fmt.Println(err)
	// Output:
	// v1.30.4 v1.33.0
	// repotool.yaml:3: unknown key "kubeversion": remove it or check its spelling (see docs/layout.md for the keys repotool.yaml accepts)
}
