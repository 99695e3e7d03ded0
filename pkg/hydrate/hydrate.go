package hydrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// SecretsMode says how Secrets are written: repotool.yaml's type
// (config.SecretsMode), the one the CLI, the plugin and argocd use too.
type SecretsMode = config.SecretsMode

// The secrets modes (see config.SecretsMode).
const (
	SecretsRefuse = config.SecretsRefuse
	SecretsSOPS   = config.SecretsSOPS
	SecretsSealed = config.SecretsSealed
)

// Options configure Hydrate.
type Options struct {
	// RepoURL is the dry repository's URL, for hydrator.metadata and
	// README.md. Default: repotool.yaml's git.repoURL.
	RepoURL string
	// DrySHA is the commit the manifests are rendered from. Required.
	DrySHA string
	// Secrets says how every cluster's Secrets are written. Default:
	// repotool.yaml's hydrate.secrets for each cluster, else
	// SecretsRefuse.
	Secrets SecretsMode
	// Recorded are the modes the output was written with, per cluster
	// (Record): with --check, under Secrets and over repotool.yaml, so
	// that an output is checked as it was written.
	Recorded map[string]SecretsMode
	// Dir is the layout's folder inside the Git repository, where the
	// README's commands run. Default: repotool.yaml's git.path, else ".".
	Dir string
	// Previous is the output as it stands (the --out folder, or the
	// cluster branches: scope.Repo.Branches), nil when there is none: SecretsSOPS
	// keeps a Secret's previous ciphertext when it decrypts to the same
	// object.
	Previous fs.FS
	// Decrypter decrypts Previous's Secrets. Default: decrypt.SOPS, with
	// the environment's keys.
	Decrypter decrypt.Decrypter
	// AllowExpiredCertificate seals (SecretsSealed) with a cluster's
	// certificate outside its validity period, which is refused otherwise,
	// as kubeseal refuses it.
	AllowExpiredCertificate bool
	// Strict fails a target whose rendering is unstable
	// (render.Result.Unstable: lookup, the clock, chance, a dependency's
	// version range): its hydrated manifest would change with no commit.
	Strict bool
	// Targets, when not nil, are the only targets rendered ("cluster/
	// namespace", as a change affects them: diff.Affected); the files of
	// the repository's other targets are kept as the output has them
	// (Result.Kept).
	Targets []string
}

// File is one file Hydrate makes: its slash-separated path below the
// output folder, and its content.
type File struct {
	Path string
	Data []byte
}

// Result is what Hydrate made: every file (Files), sorted by path, and the
// targets that failed, in target order. Sync writes nothing while Errors
// holds any.
type Result struct {
	Errors []error
	// Kept are the folders (cluster/namespace) of the targets left out by
	// Options.Targets: Sync keeps their files as they are.
	Kept []string

	// files are the files, sorted by path, their documents held in blobs
	// (packed.go); dirs and names their paths' pieces.
	files []packed
	dirs  []string
	names []string
	blobs *held.Blobs
	// flat is a result for one cluster's branch (cluster): its target
	// folders are namespaces, at the root.
	flat bool
}

// ManifestFile, ReadmeFile and MetadataFile are the files of each
// target's folder, as Argo CD's hydrator names them.
const (
	ManifestFile = "manifest.yaml"
	ReadmeFile   = "README.md"
	MetadataFile = "hydrator.metadata"
	// GitAttributesFile marks the generated files at the root.
	GitAttributesFile = ".gitattributes"
)

// Hydrate renders every target of repo with r and makes its files. A
// target that fails to render, or whose rendering would write a secret
// value in plain text, is an error of the Result and makes no files; an
// error is returned only for options that cannot work or an ended
// context. A renderer made with render.Options.Redacted makes the
// renderings with placeholders that tell where secret values land along
// with the others, in parallel; without it they are made one at a time.
// The Result keeps its files' documents in a temporary file (packed.go)
// until Close.
func Hydrate(ctx context.Context, r *render.Renderer, repo *layout.Repo, opts Options) (*Result, error) {
	opts.RepoURL = strings.TrimSpace(cmp.Or(opts.RepoURL, repo.Config.Git.RepoURL))
	opts.Dir = cmp.Or(opts.Dir, repo.Config.Git.Path, ".")
	switch {
	case opts.DrySHA == "":
		return nil, errors.New("hydrate needs the dry commit the manifests are rendered from (Options.DrySHA)")
	case opts.Secrets != "":
		if err := checkMode(opts.Secrets); err != nil {
			return nil, err
		}
	}
	mode := func(cluster string) SecretsMode { return modeFor(repo, opts.Secrets, opts.Recorded, cluster) }
	enc, err := newEncoders(repo, opts, slices.ContainsFunc(repo.Targets, func(t layout.Target) bool { return mode(t.Cluster) == SecretsSOPS }))
	if err != nil {
		return nil, err
	}
	blobs, err := held.NewBlobsOnDisk("")
	if err != nil {
		return nil, fmt.Errorf("hydrate holds the files it makes until it writes them in %w", err)
	}
	res := &Result{blobs: blobs}
	for _, f := range []File{{Path: MetadataFile, Data: rootMetadata(opts)}, {Path: GitAttributesFile, Data: []byte(gitAttributes)}} {
		if err := res.add(f); err != nil {
			res.Close()
			return nil, err
		}
	}
	targets := repo.Targets
	if opts.Targets != nil {
		targets = nil
		for _, t := range repo.Targets {
			if slices.Contains(opts.Targets, t.Name()) {
				targets = append(targets, t)
			} else {
				res.Kept = append(res.Kept, targetDirs(repo, t)...)
			}
		}
	}
	failed := map[int]error{} // by target, reported in target order
	r.RenderEachByChart(ctx, targets, func(i int, rr *render.Result) {
		files, err := targetFiles(ctx, rr, opts, mode(rr.Target.Cluster), enc)
		for k := 0; err == nil && k < len(files); k++ {
			err = res.add(files[k])
		}
		if err != nil {
			failed[i] = err
		}
	})
	if err := context.Cause(ctx); err != nil {
		res.Close()
		return nil, err
	}
	for _, i := range slices.Sorted(maps.Keys(failed)) {
		res.Errors = append(res.Errors, failed[i])
	}
	slices.SortFunc(res.files, res.compare)
	return res, nil
}

// encoders write Secrets encrypted: sops for SecretsSOPS (nil when no
// cluster uses it), sealed for SecretsSealed.
type encoders struct {
	repo   *layout.Repo
	sops   *sopsWriter
	sealed *sealer
}

// newEncoders are the encoders of repo's renderings, a sopsWriter when
// some cluster's mode is SecretsSOPS (it needs .sops.yaml).
func newEncoders(repo *layout.Repo, opts Options, sops bool) (*encoders, error) {
	enc := &encoders{repo: repo, sealed: newSealer(repo, opts)}
	if sops {
		var err error
		if enc.sops, err = newSOPSWriter(repo, opts); err != nil {
			return nil, err
		}
	}
	return enc, nil
}

// manifest is rr's stream with its Secrets written as mode says, once
// checkSecrets passed: encrypted for the rule of, and keeping the previous
// ciphertext of, the manifest that holds them in the output.
func (enc *encoders) manifest(ctx context.Context, rr *render.Result, mode SecretsMode) ([]byte, error) {
	secrets := path.Join(secretsDir(enc.repo, rr), ManifestFile)
	switch mode {
	case SecretsSOPS:
		return enc.sops.manifest(ctx, rr, secrets)
	case SecretsSealed:
		return enc.sealed.manifest(ctx, rr, secrets)
	}
	return rr.Manifest, nil
}

// modeFor is how cluster's Secrets are written: secrets when given, else
// the mode the output recorded for the cluster, else repotool.yaml's
// setting.
func modeFor(repo *layout.Repo, secrets SecretsMode, recorded map[string]SecretsMode, cluster string) SecretsMode {
	return cmp.Or(secrets, recorded[cluster], repo.Config.Hydrate.SecretsFor(cluster))
}

// EncryptedBy are the targets ("cluster/namespace") whose Secrets are
// encrypted by one of the files changed (repository paths), with secrets
// as Options.Secrets: .sops.yaml for SecretsSOPS, the cluster's
// certificate for SecretsSealed. A change to one is a change to every
// hydrated Secret of those targets, which no target's own inputs show:
// hydrate --changed-since renders them too.
func EncryptedBy(repo *layout.Repo, secrets SecretsMode, changed []string) []string {
	var out []string
	for _, t := range repo.Targets {
		mode := modeFor(repo, secrets, nil, t.Cluster)
		files := repo.SecretsInputs(t.Cluster, mode)
		if mode == SecretsSOPS {
			files = append(files, layout.SOPSConfigFile)
		}
		if slices.ContainsFunc(files, func(f string) bool { return slices.Contains(changed, f) }) {
			out = append(out, t.Name())
		}
	}
	return out
}

// targetFiles are the files of one rendered target, its Secrets written
// as mode says.
func targetFiles(ctx context.Context, rr *render.Result, opts Options, mode SecretsMode, enc *encoders) ([]File, error) {
	if rr.Err != nil {
		return nil, rr.Err
	}
	if err := checkSecrets(rr, mode); err != nil {
		return nil, err
	}
	if opts.Strict && len(rr.Unstable) > 0 {
		return nil, unstableError(rr)
	}
	data, err := enc.manifest(ctx, rr, mode)
	if err != nil {
		return nil, err
	}
	parts, err := folders(enc.repo, rr, data)
	if err != nil {
		return nil, fmt.Errorf("hydrate %s: %w", rr.Target.Name(), err)
	}
	var files []File
	for _, f := range parts {
		files = append(files,
			File{Path: path.Join(f.dir, ManifestFile), Data: f.data},
			File{Path: path.Join(f.dir, MetadataFile), Data: pathMetadata(opts, rr.Target, f.tier, mode)},
			File{Path: path.Join(f.dir, ReadmeFile), Data: readme(opts, rr.Target, f.tier, mode)})
	}
	return files, nil
}

// unstableError is the error of a target whose rendering is unstable,
// with --strict.
func unstableError(rr *render.Result) error {
	var causes []string
	for _, u := range rr.Unstable {
		at := u.Source.String()
		if u.Line > 0 {
			at += fmt.Sprintf(":%d", u.Line)
		}
		switch {
		case u.Dependency != "":
			causes = append(causes, fmt.Sprintf("the dependency %s, a version range (%s)", u.Dependency, at))
		case u.ViaTpl:
			causes = append(causes, fmt.Sprintf("%s, in text given to tpl (%s)", u.Func, at))
		default:
			causes = append(causes, fmt.Sprintf("%s (%s)", u.Func, at))
		}
	}
	return fmt.Errorf("hydrate %s: its rendering changes with no commit (--strict): %s; see the lint rule unstable-render for each cause's fix",
		rr.Target.Name(), strings.Join(causes, ", "))
}

// SecretError is a target whose rendering would write secret values in
// plain text: a Secret (in SecretsRefuse mode), or a field outside a
// Secret's data that a secret value made (in every mode). It names the
// objects, templates and fields, never a value.
type SecretError struct {
	Target string
	// Secrets are the Secrets the rendering holds ("Secret ns/name
	// (namespaces/app/templates/secret.yaml)").
	Secrets []string
	// Fields are the fields outside Secrets' data that hold secret
	// values ("ConfigMap ns/name /data/url (namespaces/...)").
	Fields []string
}

func (e *SecretError) Error() string {
	if len(e.Secrets) == 0 {
		return e.What()
	}
	return e.What() + "; " + RefuseHint
}

// RefuseHint is what to do about a Secret refused in SecretsRefuse mode:
// the end of a SecretError's message that holds Secrets, to say once for
// many targets (What).
const RefuseHint = "write Secrets encrypted with --secrets sops or --secrets sealed-secrets, or keep secret values out of Git with an " +
	"ExternalSecret (External Secrets Operator) in a Secret's place"

// What is the message without RefuseHint.
func (e *SecretError) What() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hydrate %s: ", e.Target)
	if len(e.Fields) > 0 {
		fmt.Fprintf(&b, "secret values would be written in plain text outside a Secret's data, which no encryption of Secrets protects: %s; "+
			"move them into a Secret the object refers to (an env valueFrom.secretKeyRef, a mounted Secret volume)", strings.Join(e.Fields, ", "))
		if len(e.Secrets) > 0 {
			b.WriteString("; and ")
		}
	}
	if len(e.Secrets) > 0 {
		fmt.Fprintf(&b, "the rendering holds %s, which hydrate never writes in plain text (secrets mode refuse)", strings.Join(e.Secrets, ", "))
	}
	return b.String()
}

// checkSecrets fails a rendering that holds a secret value outside a
// Secret's data, or, in SecretsRefuse mode, a Secret.
func checkSecrets(rr *render.Result, mode SecretsMode) error {
	e := &SecretError{Target: rr.Target.Name()}
	fields, err := rr.SecretFields()
	if err != nil {
		return fmt.Errorf("hydrate %s: cannot tell where its secret values land: %w", rr.Target.Name(), err)
	}
	// An object only the real rendering has may be named by a secret
	// value: it is described, never named.
	named := func(o *manifest.Object) string { return o.Kind + " " + objectName(o) }
	secretNamed := map[int]bool{}
	for _, f := range fields {
		o := &rr.Objects[f.Object]
		switch {
		case f.Pointer == "/":
			secretNamed[f.Object] = true
			e.Fields = append(e.Fields, fmt.Sprintf("a %s whose name or namespace a secret value makes (%s)", o.Kind, sourceOf(o)))
		case o.IsSecret() && (strings.HasPrefix(f.Pointer, "/data/") || strings.HasPrefix(f.Pointer, "/stringData/")):
			// A value under a plain key: what SOPS encrypts. (A key made
			// of a secret value, "/data" itself, stays readable: refused.)
		default:
			e.Fields = append(e.Fields, fmt.Sprintf("%s %s (%s)", named(o), f.Pointer, sourceOf(o)))
		}
	}
	for i := range rr.Objects {
		if o := &rr.Objects[i]; o.IsSecret() && mode == SecretsRefuse {
			if secretNamed[i] {
				e.Secrets = append(e.Secrets, fmt.Sprintf("a %s whose name a secret value makes (%s)", o.Kind, sourceOf(o)))
			} else {
				e.Secrets = append(e.Secrets, fmt.Sprintf("%s (%s)", named(o), sourceOf(o)))
			}
		}
	}
	if len(e.Secrets) == 0 && len(e.Fields) == 0 {
		return nil
	}
	return e
}

func objectName(o *manifest.Object) string {
	if o.Namespace != "" {
		return o.Namespace + "/" + o.Name
	}
	return o.Name
}

// sourceOf is the repository file an object comes from (an archive's
// member included), or its template.
func sourceOf(o *manifest.Object) string {
	return cmp.Or(o.Source.String(), o.Template, "the chart")
}
