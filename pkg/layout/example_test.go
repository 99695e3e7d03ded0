package layout_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
)

// Load a repository from any fs.FS and list its targets with their values
// files in merge order.
func ExampleLoad() {
	fsys := fstest.MapFS{
		"namespaces/shop/Chart.yaml":                      &fstest.MapFile{Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"namespaces/shop/common-values-shop.yaml":         &fstest.MapFile{Data: []byte("replicas: 2\n")},
		"clusters/prod/shop/prod-values-shop.yaml":        &fstest.MapFile{Data: []byte("replicas: 5\n")},
		"clusters/prod/shop/prod-values-shop.secret.yaml": &fstest.MapFile{Data: []byte("password: oops\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range repo.Targets {
		fmt.Println(t.Name(), "on Kubernetes", t.KubeVersion)
		for _, v := range t.Values {
			fmt.Printf("  %s (%s, secret=%v)\n", v.Path, v.Scope, v.Secret)
		}
	}
	for _, d := range repo.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// prod/shop on Kubernetes v1.35.0
	//   namespaces/shop/common-values-shop.yaml (common, secret=false)
	//   clusters/prod/shop/prod-values-shop.yaml (cluster, secret=false)
	//   clusters/prod/shop/prod-values-shop.secret.yaml (cluster, secret=true)
	// clusters/prod/shop/prod-values-shop.secret.yaml: error: secret values file is not SOPS-encrypted: its values are in plain text [secret-not-encrypted]
}

// Map a repository laid out by team and application with layout.targets,
// one chart shared by two hubs with namespaces.<ns>.chart, and list what
// each target deploys from.
func ExampleLoad_mapped() {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"repotool.yaml": file("layout:\n  targets: apps/{team}/{namespace}/{cluster}\n" +
			"namespaces:\n  hub-a: {chart: charts/hub}\n  hub-b: {chart: charts/hub}\n"),
		"charts/hub/Chart.yaml":          file("apiVersion: v2\nname: hub\nversion: 1.0.0\n"),
		"apps/data/hub-a/eu/values.yaml": file("size: 2\n"),
		"apps/data/hub-b/us/values.yaml": file("size: 3\n"),
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range repo.Targets {
		fmt.Println(t.Name(), "chart", t.ChartDir, "values", t.Values[0].Path)
	}
	// Output:
	// eu/hub-a chart charts/hub values apps/data/hub-a/eu/values.yaml
	// us/hub-b chart charts/hub values apps/data/hub-b/us/values.yaml
}
