package render_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// Render one target of a repository held in memory and list its objects.
func ExampleRenderer_Render() {
	fsys := fstest.MapFS{
		"namespaces/shop/Chart.yaml":               {Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"namespaces/shop/values.yaml":              {Data: []byte("replicas: 1\n")},
		"namespaces/shop/templates/cm.yaml":        {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  replicas: {{ .Values.replicas | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n")},
		"clusters/prod/shop/prod-values-shop.yaml": {Data: []byte("replicas: 5\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	target, _ := repo.Target("prod", "shop")
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), target)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Objects {
		fmt.Println(o.ID(), "from", o.File)
	}
	fmt.Print(string(res.Manifest))
	// Output:
	// v1/ConfigMap shop-config from namespaces/shop/templates/cm.yaml
	// ---
	// # Source: shop/templates/cm.yaml
	// apiVersion: v1
	// kind: ConfigMap
	// metadata:
	//   name: shop-config
	// data:
	//   replicas: "5"
	//   kube: "v1.35.0"
}

// Hold a rendering for later as a few bytes, and make it again with its
// target and objects: what a caller that keeps many renderings does.
func ExampleRenderer_Hold() {
	fsys := fstest.MapFS{
		"namespaces/shop/Chart.yaml":               {Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"namespaces/shop/templates/cm.yaml":        {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\n")},
		"clusters/prod/shop/prod-values-shop.yaml": {Data: []byte("replicas: 5\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	target, _ := repo.Target("prod", "shop")
	r := render.New(repo, render.DefaultOptions())
	res, err := r.Render(context.Background(), target)
	if err != nil {
		fmt.Println(err)
		return
	}
	held, secrets := r.Hold(res) // secrets: the decrypted strings, none here
	again, err := r.Unhold(context.Background(), *target, held, secrets, res.Objects)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(again.Target.Name(), again.Capabilities.KubeVersion, len(again.Objects), secrets == nil)
	// Output:
	// prod/shop v1.35.0 1 true
}
