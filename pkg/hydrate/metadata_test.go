package hydrate

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/layout"
)

// companions is testdata/companions.golden.json: the companions hydrate
// writes for a target, with what they were made from.
// internal/argocdcheck has Argo CD's commit server write them for the same
// input and requires the same bytes.
type companions struct {
	RepoURL       string   `json:"repoURL"`
	DrySHA        string   `json:"drySha"`
	Path          string   `json:"path"`
	Commands      []string `json:"commands"`
	RootMetadata  string   `json:"rootMetadata"`
	PathMetadata  string   `json:"pathMetadata"`
	Readme        string   `json:"readme"`
	GitAttributes string   `json:"gitAttributes"`
}

// TestCompanionsGolden records the companions of a target in a layout that
// stands in a folder of its repository.
func TestCompanionsGolden(t *testing.T) {
	opts := Options{RepoURL: "https://github.com/example/gitops.git", DrySHA: "3ff41cc5247197a6caf50216c4c76cc29d78a97d", Dir: "platform"}
	tg := layout.Target{Cluster: "prod-eu", Namespace: "shop"}
	c := companions{
		RepoURL: opts.RepoURL, DrySHA: opts.DrySHA, Path: "prod-eu/shop", Commands: commands(opts, tg, "", SecretsRefuse),
		RootMetadata: string(rootMetadata(opts)), PathMetadata: string(pathMetadata(opts, tg, "", SecretsRefuse)),
		Readme: string(readme(opts, tg, "", SecretsRefuse)), GitAttributes: gitAttributes,
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "companions.golden.json"), append(data, '\n'))
}
