package hydrate_test

import (
	"context"
	"fmt"
	"path"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// Hydrate a repository held in memory (a commit read with pkg/gitrev works
// the same) and list the files Sync would write.
func ExampleHydrate() {
	fsys := fstest.MapFS{
		"repotool.yaml":                            {Data: []byte("git:\n  repoURL: https://example.com/gitops.git\n")},
		"namespaces/shop/Chart.yaml":               {Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"namespaces/shop/templates/cm.yaml":        {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  replicas: {{ .Values.replicas | quote }}\n")},
		"clusters/prod/shop/prod-values-shop.yaml": {Data: []byte("replicas: 5\n")},
	}
	ctx := context.Background()
	repo, err := layout.Load(ctx, fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := hydrate.Hydrate(ctx, render.New(repo, render.DefaultOptions()), repo, hydrate.Options{DrySHA: "3ff41cc5247197a6caf50216c4c76cc29d78a97d"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	var manifest []byte
	for f, err := range res.Files() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f.Path)
		if path.Base(f.Path) == hydrate.ManifestFile {
			manifest = f.Data
		}
	}
	fmt.Print(string(manifest))
	// Output:
	// .gitattributes
	// hydrator.metadata
	// prod/shop/README.md
	// prod/shop/hydrator.metadata
	// prod/shop/manifest.yaml
	// ---
	// # Source: shop/templates/cm.yaml
	// apiVersion: v1
	// kind: ConfigMap
	// metadata:
	//   name: shop
	// data:
	//   replicas: "5"
}
