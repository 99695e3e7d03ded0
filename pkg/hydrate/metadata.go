package hydrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// The companions of the manifests, in the formats Argo CD 3.6's commit
// server writes (commitserver/commit/hydratorhelper.go: writeMetadata,
// writeReadme with the default README template of util/settings,
// writeGitAttributes). internal/argocdcheck makes them with Argo CD's own
// types and template and requires these bytes
// (testdata/companions.golden.json).

// metadata is Argo CD's hydrator.HydratorCommitMetadata, the fields
// repotool fills.
type metadata struct {
	RepoURL  string   `json:"repoURL,omitempty"`
	DrySHA   string   `json:"drySha,omitempty"`
	Commands []string `json:"commands,omitempty"`
}

// DrySHA returns the dry commit the root hydrator.metadata of the output
// folder dir records.
func DrySHA(dir string) (string, error) {
	data, err := fsutil.ReadOSFile(filepath.Join(dir, MetadataFile), fsutil.DefaultMaxFileSize)
	if err != nil {
		return "", err
	}
	var m metadata
	if err := json.Unmarshal(data, &m); err != nil || m.DrySHA == "" {
		return "", fmt.Errorf("%s records, and it has no drySha (a JSON object {\"drySha\": ...})", filepath.Join(dir, MetadataFile))
	}
	return m.DrySHA, nil
}

// gitAttributes marks the generated companions, as Argo CD does (no final
// newline).
const gitAttributes = "**/README.md linguist-generated=true\n**/hydrator.metadata linguist-generated=true"

// rootMetadata is the root's hydrator.metadata.
func rootMetadata(opts Options) []byte {
	return encode(metadata{RepoURL: opts.RepoURL, DrySHA: opts.DrySHA})
}

// pathMetadata is a target folder's hydrator.metadata; tier is the tier
// of the folder's objects, "" for the whole target; mode how its Secrets
// are written.
func pathMetadata(opts Options, t layout.Target, tier config.ArgoTier, mode SecretsMode) []byte {
	return encode(metadata{RepoURL: opts.RepoURL, DrySHA: opts.DrySHA, Commands: commands(opts, t, tier, mode)})
}

// commands reproduce a target folder's manifest.yaml from the dry commit,
// run at the repository's root: with --secrets when the folder's Secrets
// are encrypted (a SOPS or sealed Secret's ciphertext is new on every
// run), which is also how hydrate --check learns the mode the folder was
// written with (Recorded).
func commands(opts Options, t layout.Target, tier config.ArgoTier, mode SecretsMode) []string {
	c := "repotool render " + opts.Dir + " --cluster " + t.Cluster + " --namespace " + t.Short()
	if tier != "" {
		c += " --tier " + string(tier)
	}
	if mode != "" && mode != SecretsRefuse {
		c += " --secrets " + string(mode)
	}
	return []string{c}
}

// encode is Argo CD's JSON: two-space indent, HTML unescaped, a final
// newline.
func encode(m metadata) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	if err := e.Encode(m); err != nil {
		panic(err) // strings only: cannot fail
	}
	return b.Bytes()
}

// readme is a target folder's README.md: Argo CD's default template
// (settings.DefaultManifestHydrationReadmeTemplate) filled in, without
// references (hydrate records none).
func readme(opts Options, t layout.Target, tier config.ArgoTier, mode SecretsMode) []byte {
	var b strings.Builder
	b.WriteString("# Manifest Hydration\n\nTo hydrate the manifests in this repository, run the following commands:\n\n```shell\n")
	b.WriteString("git clone " + opts.RepoURL + "\n# cd into the cloned directory\ngit checkout " + opts.DrySHA + "\n")
	for _, c := range commands(opts, t, tier, mode) {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	return []byte(b.String())
}
