// Package hydrate writes every target's rendered manifests as files, the
// way Argo CD's Source Hydrator writes an application's: for the target
// (cluster, namespace), <cluster>/<namespace>/manifest.yaml with the
// objects as `repotool render` prints them, README.md and
// hydrator.metadata beside it, and a hydrator.metadata and .gitattributes
// at the root, in Argo CD 3.6's formats (metadata.go; internal/argocdcheck
// compares them with Argo CD's own). Committed to a branch, they are what
// a plain directory source or GitOps Promoter deploys, and what a
// reviewer reads.
//
// Secrets never leave in plain text. A rendering that holds a Secret
// fails its target in the one mode there is so far, SecretsRefuse; and a
// field outside a Secret's data that a secret value made (an environment
// literal, an annotation, a ConfigMap) fails it in every mode, since no
// encryption of Secrets could protect it (render.Result.SecretFields
// finds those fields by the rendering with placeholders).
//
// Hydrate makes the files in memory; Sync writes them to a folder (changed
// files only, the stale files of targets that are gone removed) and Commit
// to one branch per cluster (a commit only when its tree changes, and
// Argo CD's git note); nothing is written while a target fails.
//
// Inside: `repotool hydrate`: `Hydrate` renders every target
// (`RenderEachByChart`) and makes `<cluster>/<namespace>/manifest.yaml`
// (render's stream), README.md and hydrator.metadata, and the root's
// hydrator.metadata and .gitattributes (`metadata.go`, in Argo CD 3.6's
// formats: `internal/argocdcheck` has Argo CD's `WriteForPaths` write them for
// `testdata/companions.golden.json` and requires the same bytes), each file
// held as its documents, each distinct document once and compressed
// (`packed.go`, over `internal/textpool`: a chart's targets on many clusters
// print most documents alike), in a temporary file with only their index in
// memory (52 bytes a file: its folder and name as indexes into the folders and
// the few names held once, its documents' IDs as differences,
// `textpool.AppendIDs`, its size and its content's SHA-256; `Result.Close`
// lets it go), until it is compared (by size and digest) or written, put
// together one at a time (`Result.Files` gives them as they come); a target
// with a Secret (secrets mode refuse) or a secret value outside a Secret's
// data (`render.Result.SecretFields`, the fields where the rendering with
// placeholders differs) is a `*SecretError` naming objects, fields and
// templates, never values. `--secrets sops` (`sops.go`) splices each Secret's
// SOPS-encrypted form (`decrypt.EncryptSecret`, for `.sops.yaml`'s rule for
// the output path, looked up once per manifest: `decrypt.CreationRule`) into
// render's stream, keeping a previous ciphertext that decrypts to the same
// object; `--secrets sealed-secrets` (`sealed.go`) splices a strict-scope
// SealedSecret sealed by the sealed-secrets module (`NewSealedSecret`) for the
// cluster's committed certificate, keeping a previous one whose keyed digest
// (annotation `repotool.dev/sealed-digest`, key from `decrypt.DigestKeyer`:
// the target's SOPS data keys) is unchanged; both go through `spliceSecrets`.
// `Result.Check` compares SealedSecrets by scope, template and keys
// (`sameSealed`). `Result.Sync` (`sync.go`) writes changed files, a target's
// companions only with its manifest, removes the files of targets that are
// gone (in folders holding a hydrator.metadata only), and writes nothing while
// a target failed; `Result.Commit` (`branch.go`) commits each cluster's part
// to its branch through `gitrev.Repo.CommitFiles` (objects first, the
// reference last, compare-and-set; Argo CD's note), deciding the tree as Sync
// does (`plan`: the files to hold, each read when written, a kept target's
// from the output as it stands), and only on the head `Branches` read the
// branch at (concurrent hydrations make one commit); `CheckPrefix` and
// `CheckOut` (`outdir.go`) refuse branch names Git would not accept and an
// `--out` in `.git` or the layout's folders; an expired sealed-secrets
// certificate is refused unless `Options.AllowExpiredCertificate`.
package hydrate
