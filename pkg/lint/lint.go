package lint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
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
	// Cluster, and Namespace with it, scope the run to those targets: only
	// they are rendered, and only findings about them, or about files in
	// their folders, are kept. Checks across targets then see only these
	// (a CRD short name shared with a target outside the scope is not
	// found). Empty: every target.
	Cluster, Namespace string
	// Shard lints one part of the clusters (layout.Shard.ClusterTargets),
	// for spreading a large repository over CI jobs: findings about the
	// shard's targets, and, in the first shard only, those about no
	// target. Every check across a cluster's targets sees the whole
	// cluster, and the CRD inventory is the whole repository's (the other
	// shards' targets whose charts may render a CRD are rendered for their
	// CRDs alone). values-unused, which looks across clusters, is decided
	// when the shards' reports are merged (Result.ShardReport, Merge).
	Shard layout.Shard
	// HeldTargets bounds how many targets' renderings a run holds whole
	// at once (0: DefaultHeldTargets; negative: no bound). A run over more
	// targets than that (every target, or Targets; not a shard or one
	// cluster), in more than one cluster, is checked a cluster at a time,
	// with the same findings: the others' renderings are held compressed
	// (bycluster.go), for some more time.
	HeldTargets int
	// CRDInventory, in a sharded run, is the repository's CRDs rendered
	// once (Inventory), used instead of rendering the other shards'
	// candidates.
	CRDInventory *CRDInventory
	// Targets, when not nil, limits the run to the named targets
	// ("cluster/namespace"; other names are ignored): only they are
	// rendered and reported on, with the repository-wide findings; an
	// empty, non-nil list renders nothing.
	Targets []string
	// Keys is the operator's key policy, which the decrypter passed to
	// Lint holds too: sops-key-not-allowed names the keys of encrypted
	// files that it does not allow (they are never contacted).
	Keys sopsfile.KeyPolicy
	// CELBudget is the CEL cost a run may spend on each lint.checks
	// expression, and on each cluster's admission policies (0:
	// admission.RunBudget). The expressions come from the repository: a
	// check or policy that spends it is an error finding, not a long run.
	CELBudget int64
}

// DefaultOptions returns the default settings.
func DefaultOptions() Options { return Options{Render: render.DefaultOptions()} }

// RenderOptions are the render options Lint renders with, for callers that
// render themselves and pass the renderings to Check. Unencrypted secret
// files are plaintext-secret's to report; the rest of such a target is
// still checked. A secret file that cannot be decrypted is reported, and
// its target checked with placeholders for that file's values: one defect
// must not hide the others.
func RenderOptions() []render.Option {
	return []render.Option{render.AllowLayoutErrors(layout.CodeSecretNotEncrypted), render.PlaceholdersOnDecryptFailure()}
}

// Lint renders every target of repo, runs every rule, applies suppressions
// and returns the findings. extra injects render dependencies (a Decrypter,
// an HTTP client, a logger). It returns an error when the context ends, or
// when repotool itself fails during a check (see Result.Err).
func Lint(ctx context.Context, repo *layout.Repo, opts Options, extra ...render.Option) (*Result, error) {
	extra = append(RenderOptions(), extra...)
	targets, err := scope(repo, opts)
	if err != nil {
		return nil, err
	}
	opts.Render.VerifyUnstable = true // unstable-render reports only calls that change the output
	if opts.Targets != nil {
		w := render.New(repo, opts.Render, extra...)
		if opts.Targets = widened(ctx, w, repo, targets, opts.Targets); ctx.Err() != nil {
			return nil, ctx.Err()
		}
		extra = append(extra, render.SharingWith(w))
		if targets, err = scope(repo, opts); err != nil {
			return nil, err
		}
	}
	if byCluster(opts, targets) {
		return lintByCluster(ctx, repo, opts, targets, extra)
	}
	r := render.New(repo, opts.Render, extra...)
	part := opts.Shard.ClusterTargets(targets)
	var crdSources []*render.Result
	switch {
	case opts.Shard.N > 1 && opts.CRDInventory != nil:
		if crdSources, err = opts.CRDInventory.sources(repo, part); err != nil {
			return nil, err
		}
	case opts.Shard.N > 1:
		crdSources = otherShardsCRDs(ctx, r, repoFiles(repo), targets, part)
	}
	res := lintPart(ctx, repo, opts, part, &evidence{ctx: ctx, renderer: r, crdSources: crdSources})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Shard.N > 1 {
		res.layout = layoutDigest(repo)
	}
	return res, res.Err()
}

// lintPart renders targets (all of them, or a part: a shard's, one
// cluster's) with ev's renderer, runs every rule and keeps the findings
// of the part (keepTargets); an empty Result when ctx ends.
func lintPart(ctx context.Context, repo *layout.Repo, opts Options, targets []layout.Target, ev *evidence) *Result {
	results := make([]*render.Result, len(targets))
	objs := newObjects()
	ev.renderer.RenderEach(ctx, targets, func(i int, res *render.Result) {
		objs.letGo(res)
		results[i] = res
	})
	if ctx.Err() != nil {
		return &Result{}
	}
	return checkPart(repo, opts, targets, results, objs, ev)
}

// checkPart runs every rule over the renderings of targets and keeps the
// findings of the part.
func checkPart(repo *layout.Repo, opts Options, targets []layout.Target, results []*render.Result, objs *objects, ev *evidence) *Result {
	res := check(repo, results, opts, objs, ev)
	if opts.Cluster != "" || opts.Shard.N > 1 || opts.Targets != nil {
		res.keepTargets(targets, opts.Shard.First(), opts.Cluster != "")
	}
	return res
}

// ScopeError is an Options.Cluster or Namespace that selects nothing.
type ScopeError struct{ msg string }

func (e *ScopeError) Error() string { return e.msg }

// scope returns the targets Options.Cluster, Namespace and Targets select.
func scope(repo *layout.Repo, opts Options) ([]layout.Target, error) {
	names := map[string]bool{}
	for _, n := range opts.Targets {
		names[n] = true
	}
	named := func(t layout.Target) bool { return opts.Targets == nil || names[t.Name()] }
	if opts.Cluster == "" {
		if opts.Namespace != "" {
			return nil, &ScopeError{"a namespace scope needs its cluster"}
		}
		if opts.Targets == nil && repo.Targets != nil {
			return slices.Clip(repo.Targets), nil // every target: the layout's list, not a copy of it
		}
		out := []layout.Target{}
		for _, t := range repo.Targets {
			if named(t) {
				out = append(out, t)
			}
		}
		return out, nil
	}
	var out []layout.Target
	for _, t := range repo.TargetsOf(opts.Cluster) {
		if (opts.Namespace == "" || t.Namespace == opts.Namespace) && named(t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 && opts.Targets != nil {
		return out, nil // the change affects none of them
	}
	if len(out) == 0 {
		return nil, &ScopeError{fmt.Sprintf("no target %s: run `repotool layout` to list the targets", strings.TrimSuffix(opts.Cluster+"/"+opts.Namespace, "/"))}
	}
	return out, nil
}

// Check runs every rule over renderings already made (one per target of
// repo, in target order, with RenderOptions), for callers that render
// themselves. unstable-render reports the renderings' Unstable as they
// have it: every call made, unless they were made with
// render.Options.VerifyUnstable.
func Check(repo *layout.Repo, results []*render.Result, opts Options) *Result {
	return check(repo, results, opts, nil, &evidence{ctx: context.Background(), renderer: render.New(repo, opts.Render, RenderOptions()...)})
}

// ctx is the run's context, for rules that evaluate at length (the
// admission policies, the user's checks): they stop when it ends.
func (a *asked) ctx() context.Context {
	if a.evidence != nil && a.evidence.ctx != nil {
		return a.evidence.ctx
	}
	return context.Background()
}

// evidence is what the rules that decide by rendering again
// (values-unused) render with: a renderer made as the renderings were.
// crdSources are renderings of other shards' targets, kept for the CRDs
// they render alone.
type evidence struct {
	ctx        context.Context
	renderer   *render.Renderer
	crdSources []*render.Result
	// shared is the repository's facts when a run checks in parts
	// (lintByCluster), read once for all of them; nil: read them.
	shared *shared
	// laterUnused: values-unused judges once after the last part, over
	// the subjects the run gathered (lintByCluster).
	laterUnused bool
}

// ruleOn reports whether repo's configuration leaves rule r on.
func ruleOn(repo *layout.Repo, r *Rule) bool {
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r == ruleInvalidSuppression {
		return true // a malformed suppression is always reported
	}
	return override != "off" && (override != "" || !r.Off)
}

// runRule runs one rule (check calls the rule's check with a function
// taking each finding) at the severity repotool.yaml gives it, unless it
// is off there, and hands out each finding.
func runRule(repo *layout.Repo, r *Rule, check func(emit func(Finding)), out func(Finding)) {
	if !ruleOn(repo, r) {
		return
	}
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r == ruleInvalidSuppression {
		override = "" // a malformed suppression is always reported
	}
	check(func(f Finding) {
		f.Rule = r.ID
		if f.Severity == "" {
			f.Severity = r.Severity
		}
		if override != "" {
			f.Severity = Severity(override)
		}
		out(f)
	})
}

// check is Check, for renderings compact let go of content in.
func check(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence) *Result {
	res := &Result{}
	res.unused, res.err = runChecks(repo, results, opts, objs, ev, func(f Finding, suppressed bool) {
		if suppressed {
			res.suppressed = append(res.suppressed, f)
			res.Summary.Suppressed++
			return
		}
		res.Findings = append(res.Findings, f)
	})
	countRendered(&res.Summary, results)
	res.Finish()
	return res
}

// runChecks runs every rule over results, handing each finding to out as
// it is found, with whether a suppression leaves it out. It returns
// values-unused's scan in a sharded run (Result.unused) and a failure of
// repotool itself (Result.Err).
func runChecks(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence,
	out func(f Finding, suppressed bool)) (*unusedScan, error) {
	in := buildInput(repo, results, opts, objs, ev)
	for _, r := range registry {
		runRule(repo, r, func(emit func(Finding)) { r.check(in, emit) }, func(f Finding) { out(f, in.sup.suppressed(f)) })
	}
	return in.unused, in.toolErr
}

// countRendered counts results in s: the targets, those rendered, and those
// rendered with placeholders.
func countRendered(s *finding.Summary, results []*render.Result) {
	s.Targets += len(results)
	for _, r := range results {
		if r.Err == nil {
			s.Rendered++
			if len(r.Placeholders) > 0 {
				s.Placeholders = append(s.Placeholders, r.Target.Name())
			}
		}
	}
}
