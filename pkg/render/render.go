package render

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/repotool/repotool/internal/engine"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render/internal/charts"
	"github.com/repotool/repotool/pkg/render/internal/once"
	"github.com/repotool/repotool/pkg/values"
)

// Renderer renders a repository's targets. It loads and parses each chart
// once, however many targets use it, and is safe for concurrent use.
type Renderer struct {
	repo      *layout.Repo
	fsys      fs.FS
	files     *layout.Files // the repository's file index: values files are read once per run
	opts      Options
	decrypter Decrypter
	log       *slog.Logger
	// chartCfg is what the Options say of chart supply; supply loads the
	// charts.
	chartCfg charts.Config
	supply   *charts.Supply
	// defaults are the charts' declared values (ChartDefaults), by folder.
	defaults once.Map[values.Trace]
	// templateText is every template of a chart and its subcharts, joined
	// (TemplatesMention), by folder.
	templateText once.Map[string]
	// valuesDocs are the charts' values.yaml EffectiveValues parsed last.
	valuesDocs valuesDocs
	// engine runs the templates, each chart's parsed once.
	engine engine.Engine
	// plain holds the decrypted secret values files, by path and content
	// hash (see decrypt); in memory only.
	plainMu sync.Mutex
	plain   map[string]map[[sha256.Size]byte]*decrypted
	// valueSchemas are the compiled values.schema.json files, by content.
	valueSchemas *once.Map[*jsonschema.Schema]
	// docs parses each rendered document once, however many renderings
	// print it.
	docs    *docCache
	allowed []layout.Code
	// placeholdersOnFailure: see PlaceholdersOnDecryptFailure.
	placeholdersOnFailure bool
	progress              func(done, total int)
}

// New returns a Renderer for repo (read through repo.FS).
func New(repo *layout.Repo, opts Options, extra ...Option) *Renderer {
	r := &Renderer{
		repo:      repo,
		fsys:      repo.FS,
		files:     repo.Files,
		opts:      opts,
		decrypter: &decrypt.SOPS{},
		log:       slog.New(slog.DiscardHandler),
		chartCfg:  charts.Config{HTTP: http.DefaultClient, Indexes: charts.NewIndexes()},
	}
	if r.files == nil {
		r.files = layout.NewFiles(repo.FS) // a Repo not made by layout.Load
	}
	r.opts.Helm = opts.HelmFor(repo)
	if r.helm4() {
		r.engine.Helm = 4
	}
	r.valueSchemas = &once.Map[*jsonschema.Schema]{} // SharingWith shares it
	r.docs = newDocCache()                           // and this
	for _, o := range extra {
		o(r)
	}
	r.chartCfg.Helm4, r.chartCfg.Log = r.helm4(), r.log
	r.chartCfg.CacheDir, r.chartCfg.Offline, r.chartCfg.PlainHTTP = r.opts.CacheDir, r.opts.Offline, r.opts.PlainHTTPRegistries
	r.supply = charts.New(r.fsys, r.files, r.chartCfg)
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
	// Unstable is what makes this rendering change with no change to the
	// repository (the clock, chance, lookup, a dependency's version
	// range), sorted; lint's unstable-render rule reports it. Only the
	// calls that reach the output with Options.VerifyUnstable.
	Unstable []Unstable

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
func (r *Renderer) targetChart(ctx context.Context, t *layout.Target) (*charts.Loaded, error) {
	if err := checkHelm(r.opts.Helm); err != nil {
		return nil, err
	}
	if err := r.layoutErr(t); err != nil {
		return nil, err
	}
	entry, err := r.supply.Load(ctx, t.ChartDir)
	if err != nil {
		return nil, err
	}
	return entry, entry.LockErr
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
	res.Conflicts = valueConflicts(entry.Chart, vals, false)
	r.locateConflicts(t, res.Conflicts)
	secret := r.decrypts(t)
	rd, err := r.renderValues(ctx, t, entry, vals, r.opts.VerifyUnstable)
	res.Manifest, res.Objects = rd.stream, rd.objs
	res.Unstable = unstable(rd.calls, entry)
	if err == nil && secret {
		// Redacted output comes from a rendering in which every secret
		// value is a placeholder: decrypted bytes never reach it.
		res.safe = r.placeholders(callerCtx, res)
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

// placeholders makes res's rendering with placeholders for its secret
// values (RedactedObjects), once, on demand: it may run after the bounded
// context res rendered within is gone, within ctx, the caller's, so that
// an interrupt stops it too. It holds the target, not the chart: a
// rendering kept long after the run let its chart go (RenderEach) loads
// it again only if asked.
func (r *Renderer) placeholders(ctx context.Context, res *Result) func() ([]manifest.Object, error) {
	target := &res.Target
	return sync.OnceValues(func() ([]manifest.Object, error) {
		type out struct {
			objs []manifest.Object
			err  error
		}
		o, err := bounded(ctx, r.opts.Timeout, func(ctx context.Context) out {
			entry, err := r.targetChart(ctx, target)
			if err != nil {
				return out{nil, err}
			}
			rd, err := r.renderPlaceholders(ctx, target, entry)
			return out{rd.objs, err}
		})
		if err != nil {
			err = r.boundErr(target, err)
		} else {
			err = o.err
		}
		if err != nil {
			return nil, fmt.Errorf("render %s: no redacted copy can be made: the chart renders with the decrypted secret values but not with placeholders for "+
				"them: %w", target.Name(), err)
		}
		return o.objs, nil
	})
}

// renderPlaceholders renders t with every secret value replaced by a typed
// placeholder, as --no-decrypt does.
func (r *Renderer) renderPlaceholders(ctx context.Context, t *layout.Target, entry *charts.Loaded) (rendered, error) {
	vals, _, _, err := r.values(ctx, t, PlaceholderDecrypter{})
	if err != nil {
		return rendered{}, err
	}
	return r.renderValues(ctx, t, entry, vals, false)
}

// renderValues runs the templates with vals and splits the output into
// objects; verify: as template.
func (r *Renderer) renderValues(ctx context.Context, t *layout.Target, entry *charts.Loaded, vals map[string]any, verify bool) (rendered, error) {
	rd, err := r.template(ctx, t, entry, vals, verify)
	var de *manifest.DocumentError
	var big errOutputSize
	var se *SchemaError
	switch {
	case errors.As(err, &se):
		return rendered{}, se // quotes the schema, never a value
	case errors.As(err, &big):
		return rendered{}, &TemplateError{Target: t.Name(), Chart: t.ChartDir, Msg: big.Error()}
	case errors.As(err, &de):
		return rendered{}, templateError(t, entry, fmt.Sprintf("%s: rendered output is not valid YAML: %v", cmp.Or(de.Template, "stream"), de.Err))
	case err != nil:
		te := templateError(t, entry, cleanHelmError(err))
		var ol *outputLineError
		if errors.As(err, &ol) && te.File != "" && te.Line == 0 {
			te.Line = ol.Line
		}
		return rendered{}, te
	}
	for i := range rd.objs {
		rd.objs[i].File, rd.objs[i].Member = templateFile(rd.objs[i].Template, entry.Origins)
	}
	return rd, nil
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

// FromSecrets reports whether s contains a value that was decrypted from
// the target's secret values files (or the base64 form of one), so callers
// can tell secret-sourced values from plain-text ones without seeing them.
// Shorter values than four characters count only as exact matches.
func (res *Result) FromSecrets(s string) bool { return res.red.holds(s) }
