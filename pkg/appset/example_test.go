package appset_test

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/appset"
)

// An ApplicationSet of a list generator, in Go templates, expanded for an
// Argo CD that knows one cluster besides its own.
func ExampleExpand() {
	src := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: guestbook
spec:
  goTemplate: true
  generators:
    - list:
        elements:
          - {env: staging, cluster: in-cluster}
          - {env: prod, cluster: prod-eu}
  template:
    metadata:
      name: 'guestbook-{{.env}}'
    spec:
      project: default
      destination: {name: '{{.cluster}}', namespace: guestbook}
      source: {repoURL: https://github.com/example/gitops.git, path: 'envs/{{.env}}'}
`
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		panic(err)
	}
	env := appset.Env{
		Paths:    func() ([]string, error) { return nil, nil },
		Read:     func(string) ([]byte, error) { return nil, nil },
		OwnRepo:  func(string) string { return "" },
		Clusters: []appset.Cluster{{Name: "prod-eu", Server: "https://prod-eu.example.com", Secret: true}},
	}
	res, err := appset.Expand(context.Background(), doc.Content[0], env)
	if err != nil {
		panic(err)
	}
	for _, app := range res.Apps {
		var a struct {
			Metadata struct{ Name string }
			Spec     struct {
				Destination struct{ Name string }
				Source      struct{ Path string }
			}
		}
		if err := app.Doc.Decode(&a); err != nil {
			panic(err)
		}
		fmt.Printf("%s (line %d): %s to %s\n", a.Metadata.Name, app.Doc.Line, a.Spec.Source.Path, a.Spec.Destination.Name)
	}
	// Output:
	// guestbook-staging (line 13): envs/staging to in-cluster
	// guestbook-prod (line 13): envs/prod to prod-eu
}
