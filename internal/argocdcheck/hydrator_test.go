package argocdcheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/argoproj/argo-cd/v3/commitserver/apiclient"
	"github.com/argoproj/argo-cd/v3/commitserver/commit"
	"github.com/argoproj/argo-cd/v3/util/git"
	"github.com/argoproj/argo-cd/v3/util/settings"
)

// companionsFile is written by pkg/hydrate's TestCompanionsGolden: the
// README.md, hydrator.metadata files and .gitattributes repotool hydrate
// writes for a target, with the input they were made from.
const companionsFile = "../../pkg/hydrate/testdata/companions.golden.json"

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

// changedManifests is the one git.Client method WriteForPaths asks: every
// manifest has changed, so it writes every path's companions.
type changedManifests struct{ git.Client }

func (changedManifests) HasFileChanged(context.Context, string) (bool, error) { return true, nil }

// TestHydratorCompanions: Argo CD 3.6's commit server (WriteForPaths, with
// the default README template) writes, for the same repository, dry
// commit, path and commands, the companions repotool hydrate writes, byte
// for byte.
func TestHydratorCompanions(t *testing.T) {
	data, err := os.ReadFile(companionsFile)
	if err != nil {
		t.Fatal(err)
	}
	var want companions
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	paths := []*apiclient.PathDetails{{Path: want.Path, Commands: want.Commands}}
	if _, err := commit.WriteForPaths(context.Background(), root, want.RepoURL, want.DrySHA, nil, paths, changedManifests{}, settings.DefaultManifestHydrationReadmeTemplate); err != nil {
		t.Fatal(err)
	}
	for file, w := range map[string]string{
		"hydrator.metadata": want.RootMetadata,
		".gitattributes":    want.GitAttributes,
		filepath.Join(want.Path, "hydrator.metadata"): want.PathMetadata,
		filepath.Join(want.Path, "README.md"):         want.Readme,
	} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != w {
			t.Errorf("%s: Argo CD writes\n%q\nrepotool hydrate writes\n%q", file, got, w)
		}
	}
}
