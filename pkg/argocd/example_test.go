package argocd_test

import (
	"context"
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/layout"
)

// Generate the Argo CD objects of a repository held in memory: one
// cluster, one cluster-tier namespace and one application namespace.
func ExampleGenerate() {
	fsys := fstest.MapFS{
		"repotool.yaml": {Data: []byte(`git: {repoURL: https://git.example.com/gitops.git}
clusters:
  prod: {destination: {name: in-cluster}}
namespaces:
  cert-manager: {tier: cluster}
`)},
		"namespaces/cert-manager/Chart.yaml":          {Data: []byte("apiVersion: v2\nname: cert-manager\nversion: 1.0.0\n")},
		"namespaces/shop/Chart.yaml":                  {Data: []byte("apiVersion: v2\nname: shop\nversion: 1.0.0\n")},
		"clusters/prod/cert-manager/prod-values.yaml": {Data: []byte("a: 1\n")},
		"clusters/prod/shop/prod-values.yaml":         {Data: []byte("a: 1\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	files, err := argocd.Generate(repo, argocd.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Path())
	}
	// Output:
	// prod/application-cert-manager.yaml
	// prod/application-shop-security.yaml
	// prod/application-shop.yaml
	// prod/appproject-cluster.yaml
	// prod/appproject-namespaces.yaml
	// prod/appproject-shop.yaml
	// prod/root.yaml
}

// Ask a project whether it permits an object before Argo CD refuses it at
// sync time.
func ExampleAppProject_Permits() {
	p := &argocd.AppProject{
		Metadata: argocd.ObjectMeta{Name: "shop"},
		Spec: argocd.AppProjectSpec{
			Destinations:               []argocd.ApplicationDestination{{Name: "in-cluster", Namespace: "shop"}},
			ClusterResourceWhitelist:   []argocd.GroupKind{},
			NamespaceResourceBlacklist: []argocd.GroupKind{{Group: "", Kind: "Secret"}},
		},
	}
	cluster := argocd.ApplicationDestination{Name: "in-cluster"}
	fmt.Println(p.Permits(argocd.GroupKind{Group: "apps", Kind: "Deployment"}, "shop", cluster))
	fmt.Println(p.Permits(argocd.GroupKind{Kind: "Secret"}, "shop", cluster))
	fmt.Println(p.Permits(argocd.GroupKind{Group: "apps", Kind: "Deployment"}, "billing", cluster))
	err := p.Permits(argocd.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, "", cluster)
	var refusal *argocd.Refusal
	fmt.Println(errors.As(err, &refusal), refusal.Reason)
	// Output:
	// <nil>
	// AppProject shop does not permit the kind Secret: it is in namespaceResourceBlacklist
	// AppProject shop does not permit namespace billing on in-cluster: it is not among the project's destinations
	// true does not permit the cluster-scoped kind rbac.authorization.k8s.io/ClusterRole: it is not in clusterResourceWhitelist
}
