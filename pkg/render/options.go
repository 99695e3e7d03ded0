package render

import (
	"cmp"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/repotool/repotool/pkg/layout"
)

// Options are the serialisable render settings. Start from DefaultOptions.
type Options struct {
	// ReleaseName is Helm's release name (.Release.Name). Default: the
	// target's namespace, so that every Application rendering a namespace
	// (whatever its own name) produces the same objects.
	ReleaseName string
	// SkipCRDs leaves out the CRDs in charts' crds/ folders. By default they
	// are included, as with helm template --include-crds.
	SkipCRDs bool
	// KubeVersion, when set, overrides every target's Kubernetes version
	// (Capabilities.KubeVersion), e.g. the version Argo CD reports.
	KubeVersion string
	// APIVersions are added to every target's API versions.
	APIVersions []string
	// CacheDir holds downloaded remote chart dependencies, keyed by
	// repository, name and version. Empty: no cache (remote dependencies that
	// are not vendored under charts/ can then only be used with an exact
	// version, downloaded every run).
	CacheDir string
	// Offline forbids downloads: remote dependencies must be vendored under
	// charts/ or already cached.
	Offline bool
	// RemoteSchemaRefs fetches the http(s) $refs of values schemas (unless
	// Offline). Off, such a $ref fails its target: only the operator
	// asks for it, never the repository. A file $ref is always read from
	// the chart's own files.
	RemoteSchemaRefs bool
	// PlainHTTPRegistries talks to OCI registries over plain HTTP (for local
	// test registries).
	PlainHTTPRegistries bool
	// Concurrency bounds how many targets RenderAll renders at once.
	// Default: GOMAXPROCS.
	Concurrency int
	// Timeout bounds one target's rendering (loading its chart, reading and
	// decrypting its values, running its templates). Default
	// DefaultTimeout, below Argo CD's 90-second plugin timeout, so that a
	// runaway template fails with a clear message rather than a killed
	// plugin. Zero or less: no limit.
	Timeout time.Duration
	// MaxValuesSize bounds a values file, in bytes (default
	// DefaultMaxValuesSize). Zero or less: no limit.
	MaxValuesSize int64
	// MaxOutputSize bounds what a target's templates print, in bytes
	// (default DefaultMaxOutputSize), checked before the output is parsed.
	// Zero or less: no limit.
	MaxOutputSize int64
	// Helm is the Helm whose `helm template` the output matches byte for
	// byte: HelmV3 (Helm 3.22) or HelmV4 (Helm 4.3). Default: the
	// repository's render.helm in repotool.yaml, else HelmV3. See
	// docs/render.md, "Which Helm".
	Helm string
	// Redacted makes every Result's redacted rendering (see
	// Result.Redacted) along with the real one, in parallel, for callers
	// that will write or show it. Without it, Redacted renders on demand.
	Redacted bool
	// VerifyUnstable keeps in Result.Unstable only the calls whose result
	// reaches the output, each call site tried again with another result:
	// a rendering per site, for the targets that call one (lint's
	// unstable-render, hydrate --strict). Without it Result.Unstable is
	// every call made, and nothing is rendered twice.
	VerifyUnstable bool
}

// Default limits.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultMaxValuesSize = layout.DefaultMaxValuesSize
	DefaultMaxOutputSize = 64 << 20
)

// DefaultOptions returns the default settings: CRDs included, no cache,
// downloads allowed, one worker per CPU, the default limits.
func DefaultOptions() Options {
	return Options{
		Concurrency:   runtime.GOMAXPROCS(0),
		Timeout:       DefaultTimeout,
		MaxValuesSize: DefaultMaxValuesSize,
		MaxOutputSize: DefaultMaxOutputSize,
	}
}

// Option injects a dependency into a Renderer.
// SumsFile pins the digests of remote chart dependencies, at the
// repository's root, one per line: "<repository> <name> <version>
// sha256:<hex>". A cached archive is used only when its digest matches its
// pin (or, online, the chart repository's index); offline, only pinned
// archives are used from the cache.
const SumsFile = layout.SumsFile

type Option func(*Renderer)

// WithDecrypter sets how secret values files are decrypted. Default
// decrypt.SOPS.
func WithDecrypter(d Decrypter) Option { return func(r *Renderer) { r.decrypter = d } }

// WithHTTPClient sets the client used to download remote dependencies.
// Default http.DefaultClient.
func WithHTTPClient(c *http.Client) Option { return func(r *Renderer) { r.chartCfg.HTTP = c } }

// WithLogger sets a logger for debug messages. Default: discard. Nothing
// logged ever contains a decrypted value.
func WithLogger(l *slog.Logger) Option { return func(r *Renderer) { r.log = l } }

// AllowLayoutErrors lets targets whose only layout errors have these codes
// render anyway. By default a target with any layout error fails (see
// layout.Target.Errors). The linter uses it for secret-not-encrypted, which
// it reports itself while it checks the rest of the target.
func AllowLayoutErrors(codes ...layout.Code) Option {
	return func(r *Renderer) { r.allowed = append(r.allowed, codes...) }
}

// WithProgress calls progress(done, total) each time RenderAll finishes a
// target (from one goroutine at a time, done increasing), for a progress
// display; the library itself never prints.
func WithProgress(progress func(done, total int)) Option {
	return func(r *Renderer) { r.progress = progress }
}

// SharingWith makes the renderer share with other what depends only on
// content and the network options, not on the repository: the compiled
// values schemas (by content), the chart repositories' indexes and the
// parsed documents (by text). diff renders two revisions of one repository
// with one set of options, and compiles a chart's schema and parses an
// unchanged document once. Both renderers must have the same
// Options.Offline and HTTP client.
func SharingWith(other *Renderer) Option {
	return func(r *Renderer) {
		r.valueSchemas, r.chartCfg.Indexes, r.docs = other.valueSchemas, other.chartCfg.Indexes, other.docs
	}
}

// PlaceholdersOnDecryptFailure renders a target whose secret values file
// cannot be decrypted (no key for it, tampered, or not encrypted at all)
// with that file's values replaced by typed placeholders, as --no-decrypt
// does, instead of failing it; Result.Placeholders holds the decryption
// errors. The linter uses it so that one defect does not hide the others.
// Never for output that is deployed.
func PlaceholdersOnDecryptFailure() Option {
	return func(r *Renderer) { r.placeholdersOnFailure = true }
}

// HelmFor is the Helm a Renderer made with o renders repo as: o.Helm when
// given (compare renders one repository as both), else the Helm repo was
// loaded for (layout.Repo.Helm).
func (o Options) HelmFor(repo *layout.Repo) string { return cmp.Or(o.Helm, repo.Helm()) }
