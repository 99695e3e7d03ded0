package render

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/repotool/repotool/internal/engine"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/values"
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
type Option func(*Renderer)

// WithDecrypter sets how secret values files are decrypted. Default
// decrypt.SOPS.
func WithDecrypter(d Decrypter) Option { return func(r *Renderer) { r.decrypter = d } }

// WithHTTPClient sets the client used to download remote dependencies.
// Default http.DefaultClient.
func WithHTTPClient(c *http.Client) Option { return func(r *Renderer) { r.http = c } }

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
// values schemas (by content) and the chart repositories' indexes. diff
// renders two revisions of one repository with one set of options, and
// compiles a chart's schema once. Both renderers must have the same
// Options.Offline and HTTP client.
func SharingWith(other *Renderer) Option {
	return func(r *Renderer) { r.valueSchemas, r.indexes = other.valueSchemas, other.indexes }
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

// Renderer renders a repository's targets. It loads and parses each chart
// once, however many targets use it, and is safe for concurrent use.
type Renderer struct {
	repo      *layout.Repo
	fsys      fs.FS
	files     *layout.Files // the repository's file index: values files are read once per run
	opts      Options
	decrypter Decrypter
	http      *http.Client
	log       *slog.Logger
	charts    onceMap[*chartEntry]
	// defaults are the charts' declared values (ChartDefaults), by folder.
	defaults onceMap[values.Trace]
	// templateText is every template of a chart and its subcharts, joined
	// (TemplatesMention), by folder.
	templateText onceMap[string]
	// engine runs the templates, each chart's parsed once.
	engine engine.Engine
	// plain holds the decrypted secret values files, by path and content
	// hash (see decrypt); in memory only.
	plainMu sync.Mutex
	plain   map[string][]byte
	// valueSchemas are the compiled values.schema.json files, by content.
	valueSchemas *onceMap[*jsonschema.Schema]
	graph        depGraph
	// indexes are the chart repositories' indexes, by URL.
	indexes *onceMap[*repo.IndexFile]
	allowed []layout.Code
	// placeholdersOnFailure: see PlaceholdersOnDecryptFailure.
	placeholdersOnFailure bool
	progress              func(done, total int)
	// sums are the pins of SumsFile, read once.
	sums func() (map[string]string, error)
}

// New returns a Renderer for repo (read through repo.FS).
func New(repo *layout.Repo, opts Options, extra ...Option) *Renderer {
	r := &Renderer{
		repo:      repo,
		fsys:      repo.FS,
		files:     repo.Files,
		opts:      opts,
		decrypter: &decrypt.SOPS{},
		http:      http.DefaultClient,
		log:       slog.New(slog.DiscardHandler),
	}
	if r.opts.Helm == "" {
		r.opts.Helm = repo.Config.Render.Helm
	}
	if r.helm4() {
		r.engine.Helm = 4
	}
	r.newCaches()
	r.sums = sync.OnceValues(func() (map[string]string, error) { return parseSums(r.fsys) })
	for _, o := range extra {
		o(r)
	}
	if r.opts.Concurrency < 1 {
		r.opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	// What the templates may print while they run, include and tpl
	// counted: a template that loops printing stops there, long before
	// the machine runs out of memory (MaxOutputSize checks the result).
	switch {
	case r.opts.MaxOutputSize <= 0:
		r.engine.MaxPrinted = math.MaxInt64
	case r.opts.MaxOutputSize > math.MaxInt64/2:
		r.engine.MaxPrinted = math.MaxInt64
	default:
		r.engine.MaxPrinted = max(2*r.opts.MaxOutputSize, engine.DefaultMaxPrinted)
	}
	return r
}

// newCaches makes the caches SharingWith shares.
func (r *Renderer) newCaches() {
	r.valueSchemas = &onceMap[*jsonschema.Schema]{}
	r.indexes = &onceMap[*repo.IndexFile]{}
}

// Capabilities are what a target was rendered for: Helm's
// .Capabilities.KubeVersion and .Capabilities.APIVersions beyond the
// built-in ones.
type Capabilities struct {
	// KubeVersion is the Kubernetes version: Options.KubeVersion, or the
	// target's cluster's.
	KubeVersion string
	// APIVersions are the extra API versions the cluster serves: the
	// target's, then Options.APIVersions.
	APIVersions []string
}

// Result is one target's rendering.
type Result struct {
	Target layout.Target
	// Capabilities are what the target was rendered for; checks of the
	// result (lint's API versions and schemas) use exactly these.
	Capabilities Capabilities
	// Manifest is the YAML stream, byte-identical to what
	// `helm template --include-crds` prints for the same chart, values,
	// release, namespace and capabilities.
	Manifest []byte
	// Objects are the stream's documents, parsed, in stream order.
	Objects []manifest.Object
	// Err is why the target did not render (RenderAll only). Its message
	// never contains a decrypted value.
	Err error
	// Conflicts are values whose kind (table or single value) differs from
	// the chart's default at the same key, sorted by key.
	Conflicts []ValueConflict
	// Placeholders are the decryption errors of the secret values files
	// that were replaced by placeholders (PlaceholdersOnDecryptFailure):
	// the rendering is not what would be deployed.
	Placeholders []error

	red *redactor
	// safe renders the target's objects with placeholders for its secret
	// values, once; nil when the target has no decrypted values.
	safe func() ([]manifest.Object, error)
}

// Render renders one target.
func (r *Renderer) Render(ctx context.Context, t *layout.Target) (*Result, error) {
	res := r.render(ctx, t)
	return res, res.Err
}

// RenderAll renders targets in parallel (at most Options.Concurrency at
// once) and returns one Result per target in the order given. A target that
// fails has Err set; the others are unaffected.
func (r *Renderer) RenderAll(ctx context.Context, targets []layout.Target) []*Result {
	results := make([]*Result, len(targets))
	r.RenderEach(ctx, targets, func(i int, res *Result) { results[i] = res })
	return results
}

// RenderEach renders targets in parallel, as RenderAll does, and hands
// each Result to fn in target order as soon as it and the ones before it
// are done, from one goroutine at a time: a caller that writes each one
// out and lets it go holds a few renderings at once, not all of them.
func (r *Renderer) RenderEach(ctx context.Context, targets []layout.Target, fn func(i int, res *Result)) {
	sem := make(chan struct{}, r.opts.Concurrency)
	// window bounds how far rendering runs ahead of the slowest target
	// not yet handed over: the renderings waiting for it.
	window := make(chan struct{}, 4*r.opts.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, next := 0, 0
	ready := map[int]*Result{}
	for i := range targets {
		wg.Add(1)
		window <- struct{}{}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res := r.render(ctx, &targets[i])
			mu.Lock()
			defer mu.Unlock()
			done++
			if r.progress != nil {
				r.progress(done, len(targets))
			}
			ready[i] = res
			for {
				res, ok := ready[next]
				if !ok {
					break
				}
				delete(ready, next)
				fn(next, res)
				next++
				<-window
			}
		}()
	}
	wg.Wait()
}

// render renders one target within Options.Timeout. Helm's templates
// cannot be stopped once they run, so the work happens in a goroutine of its
// own (bounded), and render returns as soon as the context ends or the time
// is up: an interrupt ends a run within moments even when a template loops.
func (r *Renderer) render(ctx context.Context, t *layout.Target) *Result {
	if err := ctx.Err(); err != nil {
		return &Result{Target: *t, Capabilities: r.capabilities(t), Err: err}
	}
	res, err := bounded(ctx, r.opts.Timeout, func(bctx context.Context) *Result { return r.renderNow(bctx, ctx, t) })
	if err != nil {
		return &Result{Target: *t, Capabilities: r.capabilities(t), Err: r.boundErr(t, err)}
	}
	return res
}

// capabilities are the capabilities t is rendered for.
func (r *Renderer) capabilities(t *layout.Target) Capabilities {
	return Capabilities{
		KubeVersion: cmp.Or(r.opts.KubeVersion, t.KubeVersion),
		APIVersions: slices.Concat(t.APIVersions, r.opts.APIVersions),
	}
}

// boundErr turns the error bounded returns into a TimeoutError when the
// time ran out.
func (r *Renderer) boundErr(t *layout.Target, err error) error {
	if errors.Is(err, errTimeout) {
		return &TimeoutError{Target: t.Name(), Chart: t.ChartDir, Timeout: r.opts.Timeout}
	}
	return err
}

var errTimeout = errors.New("render timeout")

// targetChart loads t's chart, once t can be rendered at all: a target
// the repository declares but cannot load fails (never render what is
// left of it), as does a file:// cycle and a Chart.lock out of sync with
// the target's own Chart.yaml (as `helm dependency build` checks it).
func (r *Renderer) targetChart(ctx context.Context, t *layout.Target) (*chartEntry, error) {
	if err := checkHelm(r.opts.Helm); err != nil {
		return nil, err
	}
	if err := r.layoutErr(t); err != nil {
		return nil, err
	}
	if err := r.dependencyCycle(t.ChartDir); err != nil {
		return nil, err
	}
	entry, err := r.chart(ctx, t.ChartDir, nil)
	if err != nil {
		return nil, err
	}
	return entry, entry.lockErr
}

// renderNow renders t within ctx, the time bounded's goroutine has;
// callerCtx is the caller's, for the redacted copy made on demand later.
func (r *Renderer) renderNow(ctx, callerCtx context.Context, t *layout.Target) *Result {
	res := &Result{Target: *t, Capabilities: r.capabilities(t)}
	entry, err := r.targetChart(ctx, t)
	if err != nil {
		res.Err = fmt.Errorf("render %s: %w", t.Name(), err)
		return res
	}
	vals, red, fallbacks, err := r.values(ctx, t, r.decrypter)
	if err != nil {
		res.Err = fmt.Errorf("render %s: %w", t.Name(), err)
		return res
	}
	res.red, res.Placeholders = red, fallbacks
	res.Conflicts = valueConflicts(entry.chart, vals, false)
	r.locateConflicts(t, res.Conflicts)
	secret := r.decrypts(t)
	res.Manifest, res.Objects, err = r.renderValues(ctx, t, entry, vals)
	if err == nil && secret {
		// Redacted output comes from a rendering in which every secret
		// value is a placeholder: decrypted bytes never reach it.
		// It may run after this rendering's bounded context is gone (on
		// demand), within the caller's: an interrupt stops it too.
		safeCtx := callerCtx
		res.safe = sync.OnceValues(func() ([]manifest.Object, error) {
			type out struct {
				objs []manifest.Object
				err  error
			}
			o, err := bounded(safeCtx, r.opts.Timeout, func(ctx context.Context) out {
				_, objs, err := r.renderPlaceholders(ctx, t, entry)
				return out{objs, err}
			})
			if err != nil {
				err = r.boundErr(t, err)
			} else {
				err = o.err
			}
			if err != nil {
				return nil, fmt.Errorf("render %s: no redacted copy can be made: the chart renders with the decrypted secret values but not with placeholders for them: %w", t.Name(), err)
			}
			return o.objs, nil
		})
		if r.opts.Redacted {
			res.safe()
		}
	}
	if err != nil {
		res.Manifest, res.Objects = nil, nil
		res.Err = r.safeError(ctx, t, entry, err, secret)
	}
	return res
}

// decrypts reports whether rendering t decrypts secret values for real.
func (r *Renderer) decrypts(t *layout.Target) bool {
	if _, ok := r.decrypter.(PlaceholderDecrypter); ok {
		return false
	}
	return slices.ContainsFunc(t.Values, func(v layout.ValueFile) bool { return v.Secret })
}

// renderPlaceholders renders t with every secret value replaced by a typed
// placeholder, as --no-decrypt does.
func (r *Renderer) renderPlaceholders(ctx context.Context, t *layout.Target, entry *chartEntry) ([]byte, []manifest.Object, error) {
	vals, _, _, err := r.values(ctx, t, PlaceholderDecrypter{})
	if err != nil {
		return nil, nil, err
	}
	return r.renderValues(ctx, t, entry, vals)
}

// renderValues runs the templates with vals and splits the output into
// objects.
func (r *Renderer) renderValues(ctx context.Context, t *layout.Target, entry *chartEntry, vals map[string]any) ([]byte, []manifest.Object, error) {
	stream, objs, err := r.template(ctx, t, entry, vals)
	var de *manifest.DocumentError
	var big errOutputSize
	switch {
	case errors.As(err, &big):
		return nil, nil, &TemplateError{Target: t.Name(), Chart: t.ChartDir, Msg: big.Error()}
	case errors.As(err, &de):
		return nil, nil, templateError(t, entry, fmt.Sprintf("%s: rendered output is not valid YAML: %v", cmp.Or(de.Template, "stream"), de.Err))
	case err != nil:
		return nil, nil, templateError(t, entry, cleanHelmError(err))
	}
	for i := range objs {
		objs[i].File, objs[i].Member = templateFile(objs[i].Template, entry.origins)
	}
	return stream, objs, nil
}

func templateError(t *layout.Target, entry *chartEntry, msg string) *TemplateError {
	loc := locate(msg, entry)
	return &TemplateError{Target: t.Name(), Chart: t.ChartDir, File: loc.file, Line: loc.line, Msg: msg}
}

// safeError returns the error to show for a rendering that failed. Helm's
// messages quote values (a failed `fail` or `required`, invalid output
// YAML, a values.schema.json violation), in whatever form the templates
// gave them, so for a target with decrypted secret values the message is
// never Helm's message about that rendering: it is the message of the same
// rendering with placeholders for the secret values, or, when only the
// real values fail, a message that names the template and withholds the
// rest.
func (r *Renderer) safeError(ctx context.Context, t *layout.Target, entry *chartEntry, err error, secret bool) error {
	var te *TemplateError
	if !secret || !errors.As(err, &te) {
		return err
	}
	_, _, perr := r.renderPlaceholders(ctx, t, entry)
	if errors.As(perr, &te) {
		return te
	}
	if perr != nil {
		return perr
	}
	msg := "fails with the decrypted secret values, but not with placeholders for them: Helm's message is withheld because it could quote a secret"
	loc := locate(err.Error(), entry)
	switch {
	case loc.ref != "":
		msg += "; the failure is at " + loc.ref
	case strings.Contains(err.Error(), "values don't meet the specifications of the schema"):
		msg += "; the values do not match the chart's values.schema.json"
		loc.file = path.Join(t.ChartDir, "values.schema.json")
	}
	return &TemplateError{Target: t.Name(), Chart: t.ChartDir, File: loc.file, Line: loc.line, Msg: msg + "; check the secret values this template uses"}
}

// templateLocationRE finds "<chart>/templates/x.yaml:12:3" (line and
// column optional) in Helm's messages.
var templateLocationRE = regexp.MustCompile(`([\w.-]+(?:/[\w.-]+)*\.(?:yaml|yml|tpl|txt|json))(?::(\d+))?(?::\d+)?`)

// yamlLineRE finds the line of a YAML error about a rendered document.
var yamlLineRE = regexp.MustCompile(`yaml: line (\d+):`)

// location is where in the repository a rendering failed, as far as Helm's
// message tells.
type location struct {
	// ref is the chart's name for the file, with line and column, as Helm
	// gives it ("app/templates/cm.yaml:12:3").
	ref string
	// file is the repository path ("namespaces/app/templates/cm.yaml"),
	// or the archive the file is in; line is 0 when unknown.
	file string
	line int
}

// locate returns the first place in msg that names a file of the chart or
// of its dependencies, and only such a place (so that nothing else of the
// message can come through it).
func locate(msg string, entry *chartEntry) location {
	known := map[string]bool{}
	var add func(c *chart.Chart)
	add = func(c *chart.Chart) {
		for _, f := range c.Templates {
			known[path.Join(c.ChartFullPath(), f.Name)] = true
		}
		for _, f := range c.Files {
			known[path.Join(c.ChartFullPath(), f.Name)] = true
		}
		for _, d := range c.Dependencies() {
			add(d)
		}
	}
	add(entry.chart)
	for _, m := range templateLocationRE.FindAllStringSubmatch(msg, -1) {
		if !known[m[1]] {
			continue
		}
		loc := location{ref: m[0]}
		loc.line, _ = strconv.Atoi(m[2])
		if loc.line == 0 {
			if y := yamlLineRE.FindStringSubmatch(msg); y != nil && strings.Contains(m[1], "/crds/") {
				loc.line, _ = strconv.Atoi(y[1]) // a plain file: the document's line is the file's
			}
		}
		// The chart (or subchart) the file belongs to: the longest origin.
		best := ""
		for full := range entry.origins {
			if strings.HasPrefix(m[1], full+"/") && len(full) > len(best) {
				best = full
			}
		}
		origin := entry.origins[best]
		switch {
		case best == "":
		case strings.HasSuffix(origin, ".tgz"):
			loc.file, loc.line = origin, 0
		default:
			loc.file = path.Join(origin, strings.TrimPrefix(m[1], best+"/"))
		}
		return loc
	}
	return location{}
}

// bounded runs fn in a goroutine of its own and returns its result when it
// returns, or the context's cause when ctx ends or timeout (none when 0)
// passes first (errTimeout for the timeout): Helm's templates cannot be
// stopped once they run.
func bounded[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) T) (T, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errTimeout)
		defer cancel()
	}
	done := make(chan T, 1)
	go func() { done <- fn(ctx) }()
	select {
	case v := <-done:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

// layoutErr returns the target's layout errors, less the allowed codes.
func (r *Renderer) layoutErr(t *layout.Target) error {
	if !slices.ContainsFunc(t.Errors, func(d layout.Diagnostic) bool { return !slices.Contains(r.allowed, d.Code) }) {
		return nil
	}
	return t.Err()
}

// cleanHelmError returns Helm's message without its advice to use --debug,
// which does not apply here.
func cleanHelmError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\n\nUse --debug flag"); i >= 0 {
		msg = msg[:i]
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "cancelled: " + msg
	}
	return msg
}

// FromSecrets reports whether s contains a value that was decrypted from
// the target's secret values files (or the base64 form of one), so callers
// can tell secret-sourced values from plain-text ones without seeing them.
// Shorter values than four characters count only as exact matches.
func (res *Result) FromSecrets(s string) bool { return res.red.holds(s) }
