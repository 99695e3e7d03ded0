package lint

import (
	"context"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// Options configure Lint.
type Options struct {
	// Render configures how targets are rendered (Kubernetes version
	// override, dependency cache, offline, concurrency).
	Render render.Options
	// SchemaDir keeps the JSON schemas the schema rule used, in
	// kubeconform's layout (crd/<group>/<kind>_<version>.json and
	// builtin/v1.<minor>/<kind>-<group>-<version>.json), for other tools.
	// Empty: a temporary folder, removed after the run.
	SchemaDir string
}

// DefaultOptions returns the default settings.
func DefaultOptions() Options { return Options{Render: render.DefaultOptions()} }

// Lint renders every target of repo, runs every rule, applies suppressions
// and returns the findings. extra injects render dependencies (a Decrypter,
// an HTTP client, a logger). It returns an error when the context ends, or
// when repotool itself fails during a check (see Result.Err).
func Lint(ctx context.Context, repo *layout.Repo, opts Options, extra ...render.Option) (*Result, error) {
	// Unencrypted secret files are plaintext-secret's to report; the rest
	// of such a target is still checked.
	// A secret file that cannot be decrypted is reported, and its target
	// checked with placeholders for that file's values: one defect must not
	// hide the others.
	extra = append([]render.Option{render.AllowLayoutErrors(layout.CodeSecretNotEncrypted), render.PlaceholdersOnDecryptFailure()}, extra...)
	results := render.New(repo, opts.Render, extra...).RenderAll(ctx, repo.Targets)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := Check(repo, results, opts)
	return res, res.Err()
}

// Check runs every rule over renderings already made (one per target of
// repo, in target order), for callers that render themselves.
func Check(repo *layout.Repo, results []*render.Result, opts Options) *Result {
	in := buildInput(repo, results)
	in.renderOpts = opts.Render
	in.schemaDir = opts.SchemaDir
	var all []Finding
	in.sup = in.loadSuppressions(func(f Finding) { in.suppressionFindings = append(in.suppressionFindings, f) })
	for _, r := range registry {
		override := repo.Config.Lint.Rules[r.ID].Severity
		if override == "off" && r != ruleInvalidSuppression {
			continue
		}
		r.check(in, func(f Finding) {
			f.Rule = r.ID
			if f.Severity == "" {
				f.Severity = r.Severity
			}
			if override != "" && override != "off" && r != ruleInvalidSuppression {
				f.Severity = Severity(override)
			}
			all = append(all, f)
		})
	}
	res := &Result{}
	for _, f := range all {
		if in.sup.suppressed(f) {
			res.Summary.Suppressed++
			continue
		}
		res.Findings = append(res.Findings, f)
	}
	res.Summary.Targets = len(results)
	for _, r := range results {
		if r.Err == nil {
			res.Summary.Rendered++
			if len(r.Placeholders) > 0 {
				res.Summary.Placeholders = append(res.Summary.Placeholders, r.Target.Name())
			}
		}
	}
	res.finish()
	res.err = in.toolErr
	return res
}
