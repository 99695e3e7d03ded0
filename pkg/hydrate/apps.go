package hydrate

import (
	"cmp"
	"context"
	"path"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// folder is one folder of a target's output: its path below the output
// (<cluster>/<name>), its manifest, and the tier of the objects it holds
// ("" for the whole target).
type folder struct {
	dir  string
	data []byte
	tier config.ArgoTier
}

// perApplication reports whether the output has a folder per generated
// Application, as the Applications of argocd.source hydrated and
// source-hydrator read it: an application namespace's security manifests
// (the namespaces tier) in <namespace>-security, the rest in <namespace>.
// With the plugin source (the default) a target is one folder.
func perApplication(repo *layout.Repo) bool {
	return repo.Config.ArgoCD.SourceMode() != config.SourcePlugin
}

// folders are the folders of rr's output, data its manifest as written
// (Secrets encrypted): split by tier when perApplication, as the
// repotool plugin splits it for each Application (render --argocd).
func folders(repo *layout.Repo, rr *render.Result, data []byte) ([]folder, error) {
	dir := path.Join(rr.Target.Cluster, rr.Target.Short())
	if !perApplication(repo) || rr.Target.Tier == config.TierCluster || rr.Target.App != nil {
		return []folder{{dir: dir, data: data}}, nil
	}
	objs, err := manifest.Read(data)
	if err != nil {
		return nil, err
	}
	tiers := argocd.NewTiers(repo, manifest.NewCRDs(manifest.CRDsOf(rr.Objects)...))
	var out []folder
	for _, p := range []struct {
		dir  string
		tier config.ArgoTier
	}{{dir, config.ArgoTierApplication}, {dir + argocd.SecuritySuffix, config.ArgoTierNamespaces}} {
		part, err := tiers.Split(rr.Target, data, objs, p.tier)
		if err != nil {
			return nil, err
		}
		out = append(out, folder{dir: p.dir, data: part, tier: p.tier})
	}
	return out, nil
}

// Manifest is rr's manifest as hydrate writes it with secrets (refuse,
// sops or sealed-secrets; "" means refuse): a Secret refused, SOPS-encrypted
// or sealed, and a secret value outside a Secret's data refused in every
// mode, with the messages of Hydrate. It is what the repotool plugin
// prints as the dry source of Argo CD's Source Hydrator (plugin env
// SECRETS), which commits it to Git: nothing in it is plain text. The
// plugin has no previous output, so a SealedSecret or SOPS-encrypted
// Secret gets new ciphertext on each rendering (each dry commit, for the
// hydrator). dec's key policy (decrypt.PolicyOf) admits the .sops.yaml
// rule's recipients; nil allows age recipients only.
func Manifest(ctx context.Context, repo *layout.Repo, rr *render.Result, secrets SecretsMode, dec decrypt.Decrypter) ([]byte, error) {
	if rr.Err != nil {
		return nil, rr.Err
	}
	secrets = cmp.Or(secrets, SecretsRefuse)
	if err := checkMode(secrets); err != nil {
		return nil, err
	}
	if err := checkSecrets(rr, secrets); err != nil {
		return nil, err
	}
	enc, err := newEncoders(repo, Options{Decrypter: dec}, secrets == SecretsSOPS)
	if err != nil {
		return nil, err
	}
	return enc.manifest(ctx, rr, secrets)
}

// checkMode refuses a secrets mode hydrate does not know.
func checkMode(m SecretsMode) error {
	_, err := config.ParseSecretsMode(string(m))
	return err
}

// secretsDir is the folder of rr's output that holds its Secrets: the
// target's, or, split, the one of the Secret's tier.
func secretsDir(repo *layout.Repo, rr *render.Result) string {
	dirs := targetDirs(repo, rr.Target)
	if len(dirs) == 1 {
		return dirs[0]
	}
	tiers := argocd.NewTiers(repo, manifest.NewCRDs())
	if tier, _ := tiers.TierOf("v1", "Secret"); tier == config.ArgoTierNamespaces {
		return dirs[1]
	}
	return dirs[0]
}

// targetDirs are the folders of target t's output.
func targetDirs(repo *layout.Repo, t layout.Target) []string {
	dir := path.Join(t.Cluster, t.Short())
	if !perApplication(repo) || t.Tier == config.TierCluster || t.App != nil { // an Application's target is its one folder
		return []string{dir}
	}
	return []string{dir, dir + argocd.SecuritySuffix}
}
