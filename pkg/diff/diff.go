// Package diff compares what two revisions of a repository deploy, object
// by object: it works out which targets a change affects (their charts and
// file:// dependencies, their values files, the repository's
// configuration), renders only those, at both revisions, and compares the
// objects by key (group, kind, namespace, name), so that an apiVersion
// bump is a change, not a removal and an addition.
//
// Secret values never appear: objects are compared, and diffs made, on the
// redacted renderings (every value from a .secret.yaml file replaced by a
// placeholder, the same at both revisions); a secret value that changed is
// found by comparing the real renderings in memory, and reported by the
// path of the field that changed, never by its value or any hash of it.
//
// Inside: `repotool diff`: the affected targets (`scope.Affected`) and the
// generated Argo CD objects (`generated.go`) compared for only the clusters a
// change is inside when it is inside clusters' folders, rendered at both
// revisions a batch at a time (each batch's renderings let go before the next:
// `batchSize`), or those of one part of the clusters (`Options.Shard`,
// `RunShard`; `Merge` makes one run's result of every part's `ShardReport`:
// `shard.go`), objects compared by `manifest.Key` on the redacted renderings
// (`render.Result.RedactedObjects`: no stream printed and parsed again),
// changed secret values found by comparing the real ones in memory and
// reported by field only. `ignore.go` hides, and counts in
// `change.Result.Hidden`, a changed object whose every changed field is
// ignored: the defaults (webhook caBundles, checksum/ annotations alone),
// head's `diff.ignore` and the jsonPointers of the generated Applications'
// `ignoreDifferences`, and the fields a second rendering of an unstable target
// (`render.Result.Unstable`) regenerates. `change.Result.Deletions` is what
// `--fail-on-delete` refuses. With `Options.AsAdmitted` (`admitted.go`: `diff
// --as-admitted`, the `Admitter` the CLI makes of `lint.Admit`, so diff links
// no policy evaluation), every target of the affected targets' clusters is
// compared in batches of whole clusters, each revision's renderings, real and
// redacted, put to its mutating policies, and each change names what they did
// (`change.Change.Admission`). `CompareTargets` compares two targets of one
// repository the same way (`repotool compare`), and `CompareHelm` (`helms.go`)
// each target rendered as Helm 3 and as Helm 4, naming known causes (`compare
// --helm v3,v4`). `scope.Touched` is what `lint --changed-since` and `lint
// --staged` scope to (`lint.Options.Targets`: only those targets are rendered;
// findings about no target are kept), and `hydrate --changed-since` renders.
package diff

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
)

// Options configure Run.
type Options struct {
	// Render configures both renderings.
	Render render.Options
	// Extra are render options for both (a Decrypter, a logger).
	Extra []render.Option
	// NoIgnore shows every change: none is hidden by the ignore rules
	// (head's diff.ignore and the defaults; see ignore.go).
	NoIgnore bool
	// AsAdmitted, when set, compares the objects as the clusters'
	// mutating admission policies admit them, at each revision: every
	// target of the affected targets' clusters is compared, and each
	// change says what the policies did (Change.Admission).
	AsAdmitted Admitter
	// Shard compares one part of the affected targets' clusters (the
	// clusters, sorted by name, dealt to the parts in turn), and the
	// generated Argo CD objects in the first part only, for spreading a
	// large change over CI jobs (RunShard, Merge).
	Shard layout.Shard
}

// Run compares base and head, given the paths that differ between them:
// it renders the affected targets at both revisions and compares their
// objects.
func Run(ctx context.Context, base, head *layout.Repo, changed []string, opts Options) (*change.Result, error) {
	res, _, err := run(ctx, base, head, changed, opts)
	return res, err
}

// run is Run, with the target of each error about a target (the first
// of res.Errors; the others are about the generated objects).
func run(ctx context.Context, base, head *layout.Repo, changed []string, opts Options) (*change.Result, []string, error) {
	res := &change.Result{Targets: scope.Affected(base, head, changed), Changes: []change.Change{}, ArgoCD: []change.Change{}}
	if opts.AsAdmitted != nil {
		res.Targets = clustersOf(res.Targets, base, head)
	}
	var errorTargets []string
	mine := shardTargets(res.Targets, opts.Shard)
	extra := append([]render.Option{render.AllowLayoutErrors(layout.CodeSecretNotEncrypted)}, opts.Extra...)
	baseR := render.New(base, opts.Render, extra...)
	headR := render.New(head, opts.Render, append(extra, render.SharingWith(baseR))...)
	var ig *ignorer
	if !opts.NoIgnore {
		var err error
		if ig, err = newIgnorer(&head.Config); err != nil {
			return nil, nil, err
		}
	}
	// The targets are compared a batch at a time, each batch's
	// renderings let go before the next: a change that affects every
	// target holds a batch of renderings, not all of them.
	for _, b := range batches(mine, batchSize(baseR.Concurrency()), opts.AsAdmitted != nil) {
		names := map[string]bool{}
		for _, t := range b {
			names[t.Name] = true
		}
		pick := func(repo *layout.Repo) []layout.Target { // the batch's, not a copy of every target less the others
			var out []layout.Target
			for i := range repo.Targets {
				if names[repo.Targets[i].Name()] {
					out = append(out, repo.Targets[i])
				}
			}
			return out
		}
		baseList := baseR.RenderAll(ctx, pick(base))
		headList := headR.RenderAll(ctx, pick(head))
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if ig != nil {
			ig.regenerate(ctx, headR, headList)
		}
		var baseAdm, headAdm admittedSide
		if opts.AsAdmitted != nil {
			var err error
			if baseAdm, err = admitSide(ctx, opts.AsAdmitted, base, baseList); err != nil {
				return nil, nil, fmt.Errorf("at %s: %w", cmp.Or(res.Base, "base"), err)
			}
			if headAdm, err = admitSide(ctx, opts.AsAdmitted, head, headList); err != nil {
				return nil, nil, fmt.Errorf("at %s: %w", cmp.Or(res.Head, "head"), err)
			}
			baseList, headList = baseAdm.results, headAdm.results
		}
		baseRes, headRes := byName(baseList), byName(headList)
		for _, t := range b {
			n, c := len(res.Errors), len(res.Changes)
			compareTarget(res, pair{name: t.Name, base: baseRes[t.Name], head: headRes[t.Name], labels: revisions, ig: ig,
				origins: lazyOrigins(ctx, baseR, headR, baseRes[t.Name], headRes[t.Name], changed)})
			for range res.Errors[n:] {
				errorTargets = append(errorTargets, t.Name)
			}
			noteAdmission(res.Changes, c, t.Name, baseAdm, headAdm)
		}
	}
	if !opts.Shard.First() {
		return res, errorTargets, nil // the first part compares the generated objects
	}
	argo, warnings, err := compareGenerated(base, head, generatedClusters(base, head, changed))
	res.ArgoCD = append(res.ArgoCD, argo...)
	res.Warnings = warnings
	if err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	return res, errorTargets, nil
}

// batchSize is how many targets Run compares at a time, rendering
// concurrency at once.
var batchSize = func(concurrency int) int { return max(64, 16*concurrency) }

// batches splits targets into batches of size, or, as admitted, of whole
// clusters (clusterBatches).
func batches(targets []change.Target, size int, wholeClusters bool) [][]change.Target {
	if wholeClusters {
		return clusterBatches(targets, size)
	}
	var out [][]change.Target
	for from := 0; from < len(targets); from += size {
		out = append(out, targets[from:min(from+size, len(targets))])
	}
	return out
}

// byName are results by their target's name.
func byName(results []*render.Result) map[string]*render.Result {
	m := map[string]*render.Result{}
	for _, r := range results {
		m[r.Target.Name()] = r
	}
	return m
}

// side is one revision's rendering of a target: the redacted objects (to
// show) and the real ones (to find secret changes), by key.
type side struct {
	safe, real map[manifest.Key]*manifest.Object
}

func load(name, rev string, r *render.Result) (side, error) {
	s := side{safe: map[manifest.Key]*manifest.Object{}, real: map[manifest.Key]*manifest.Object{}}
	if r == nil {
		return s, nil
	}
	if r.Err != nil {
		return s, fmt.Errorf("%s at %s: %w", name, rev, r.Err)
	}
	objs, err := r.RedactedObjects()
	if err != nil {
		return s, fmt.Errorf("%s at %s: %w", name, rev, err)
	}
	for i := range objs {
		o := &objs[i]
		s.safe[keyIn(o, r.Target.Namespace)] = o
	}
	for i := range r.Objects {
		o := &r.Objects[i]
		s.real[keyIn(o, r.Target.Namespace)] = o
	}
	return s, nil
}

// keyIn is an object's key, with the namespace it lands in.
func keyIn(o *manifest.Object, ns string) manifest.Key {
	k := o.Key()
	if k.Namespace == "" {
		k.Namespace = ns // cluster-scoped kinds too: keys only need to match across revisions
	}
	return k
}

// compareTarget adds to res the changes of a target from base to head
// (or why they cannot be compared), the changes the ignorer hides in
// res.Hidden.
func compareTarget(res *change.Result, pr pair) {
	var errs []string
	name := pr.name
	b, err := load(name, cmp.Or(res.Base, "base"), pr.base)
	if err != nil {
		errs = append(errs, err.Error())
	}
	h, err := load(name, cmp.Or(res.Head, "head"), pr.head)
	if err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		res.Errors = append(res.Errors, errs...)
		return
	}
	keys := map[manifest.Key]bool{}
	for k := range b.safe {
		keys[k] = true
	}
	for k := range h.safe {
		keys[k] = true
	}
	sorted := slices.SortedFunc(maps.Keys(keys), manifest.Key.Compare)
	diffOf := func(a, b []byte, id string) string { return unified(a, b, pr.labels[0]+"/"+id, pr.labels[1]+"/"+id) }
	for _, k := range sorted {
		bo, ho := b.safe[k], h.safe[k]
		switch {
		case bo == nil:
			res.Changes = append(res.Changes, change.Change{Target: name, Key: k, Object: ho.ID(), Action: "added", Diff: diffOf(nil, ho.YAML, ho.ID())})
		case ho == nil:
			res.Changes = append(res.Changes, change.Change{Target: name, Key: k, Object: bo.ID(), Action: "removed", Diff: diffOf(bo.YAML, nil, bo.ID())})
		default:
			c := change.Change{Target: name, Key: k, Object: ho.ID(), Action: "changed"}
			if bo.APIVersion != ho.APIVersion {
				c.APIVersion = bo.APIVersion + " -> " + ho.APIVersion
			}
			// Blank lines after a document are not part of the object
			// (Helm 4 keeps them where Helm 3 drops them).
			if !sameDoc(bo.YAML, ho.YAML) {
				c.Diff = diffOf(trimDoc(bo.YAML), trimDoc(ho.YAML), ho.ID())
			}
			c.SecretFields = secretFields(b.real[k], h.real[k], bo, ho)
			why := ""
			if c.Diff != "" && c.APIVersion == "" && len(c.SecretFields) == 0 {
				why = pr.ig.hidden(name, k, bo.Content, ho.Content)
			}
			switch {
			case c.Diff == "" && len(c.SecretFields) == 0:
			case why != "":
				res.Hidden = append(res.Hidden, change.Hidden{Target: name, Object: ho.ID(), Reason: why})
			default:
				if pr.origins != nil {
					c.Provenance = pr.origins().provenance(bo, ho, c.SecretFields)
				}
				res.Changes = append(res.Changes, c)
			}
		}
	}
}

// trimDoc is a copy of a document without the blank lines that end it
// (the objects' texts are shared: never written to).
func trimDoc(doc []byte) []byte {
	return append(slices.Clip(bytes.TrimRight(doc, " \t\n")), '\n')
}

// sameDoc reports whether two documents are the same but for the blank
// lines that end them.
func sameDoc(a, b []byte) bool {
	return bytes.Equal(bytes.TrimRight(a, " \t\n"), bytes.TrimRight(b, " \t\n"))
}

// unified is a unified diff of two texts, named from and to.
func unified(a, b []byte, from, to string) string {
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: from, ToFile: to, Context: 3,
	})
	return d
}

// secretFields are the JSON pointers of the leaves whose real values
// differ while their redacted ones are equal: secret values that changed.
// A map with a key its redacted side lacks (a key a secret value made) is
// named itself, never its keys.
func secretFields(realBase, realHead, safeBase, safeHead *manifest.Object) []string {
	if realBase == nil || realHead == nil || len(realBase.YAML) > 0 && sameDoc(realBase.YAML, realHead.YAML) {
		return nil // the same document: no value changed, secret or not
	}
	var out []string
	var walk func(p string, rb, rh, sb, sh any)
	walk = func(p string, rb, rh, sb, sh any) {
		switch rbv := rb.(type) {
		case map[string]any:
			rhv, _ := rh.(map[string]any)
			sbv, _ := sb.(map[string]any)
			shv, _ := sh.(map[string]any)
			keys := map[string]bool{}
			secretKey := false
			for k := range rbv {
				keys[k] = true
				_, in := sbv[k]
				secretKey = secretKey || !in
			}
			for k := range rhv {
				keys[k] = true
				_, in := shv[k]
				secretKey = secretKey || !in
			}
			if secretKey {
				if fmt.Sprint(rbv) != fmt.Sprint(rhv) {
					out = append(out, cmp.Or(p, "/"))
				}
				return
			}
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				walk(p+"/"+jsonptr.Escape(k), rbv[k], rhv[k], sbv[k], shv[k])
			}
			return
		case []any:
			rhv, _ := rh.([]any)
			sbv, _ := sb.([]any)
			shv, _ := sh.([]any)
			for i := range max(len(rbv), len(rhv)) {
				walk(fmt.Sprintf("%s/%d", p, i), at(rbv, i), at(rhv, i), at(sbv, i), at(shv, i))
			}
			return
		}
		if fmt.Sprint(rb) != fmt.Sprint(rh) && fmt.Sprint(sb) == fmt.Sprint(sh) {
			out = append(out, cmp.Or(p, "/"))
		}
	}
	walk("", realBase.Content, realHead.Content, safeBase.Content, safeHead.Content)
	return out
}

func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}
