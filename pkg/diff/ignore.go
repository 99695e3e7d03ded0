package diff

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gobwas/glob"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// ignoreRule ignores changes to some fields of the objects it matches.
type ignoreRule struct {
	reason   string
	object   [4]glob.Glob // group, kind, namespace, name; nil: any
	pointers []string
	patterns []*regexp.Regexp
	// alone: the rule hides an object only when its fields are all that
	// changed (checksum annotations: they change with what they sum).
	alone bool
	// targetNS limits the rule to the targets of one namespace ("": all).
	targetNS string
	// argo is an Application's ignoreDifferences entry, which selects
	// objects and covers fields by its own reading (config.IgnoreDifference).
	argo *config.IgnoreDifference
}

// defaultIgnores are the changes no reviewer needs to see: a webhook's
// caBundle (a CA made at render time, or injected in the cluster), and
// pod templates' checksum/ annotations when nothing else in the object
// changed (Helm's idiom to roll pods when a ConfigMap changes: the
// ConfigMap's own change is shown).
var defaultIgnores = []ignoreRule{
	{
		reason:   "a webhook's caBundle",
		object:   globs("admissionregistration.k8s.io", "*WebhookConfiguration"),
		patterns: res(`^/webhooks/\d+/clientConfig/caBundle$`),
	},
	{
		reason:   "a webhook's caBundle",
		object:   globs("apiextensions.k8s.io", "CustomResourceDefinition"),
		pointers: []string{"/spec/conversion/webhook/clientConfig/caBundle"},
	},
	{reason: "a webhook's caBundle", object: globs("apiregistration.k8s.io", "APIService"), pointers: []string{"/spec/caBundle"}},
	{reason: "checksum/ annotations", patterns: res(`^(/spec/template|/spec/jobTemplate/spec/template)?/metadata/annotations/checksum~1`), alone: true},
}

func globs(group, kind string) [4]glob.Glob {
	return [4]glob.Glob{glob.MustCompile(group), glob.MustCompile(kind), nil, nil}
}

func res(exprs ...string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, e := range exprs {
		out = append(out, regexp.MustCompile(e))
	}
	return out
}

// ignorer decides which changes diff hides: the default rules, the
// repository's diff.ignore, and the fields a target's rendering
// regenerates on every run (regenerated, by target and object).
type ignorer struct {
	rules       []ignoreRule
	regenerated map[string]map[manifest.Key][]string
}

// newIgnorer is the ignorer of cfg's diff.ignore (already validated) and
// of the generated Applications' ignoreDifferences (argocd.ignoreDifferences,
// namespaces.<ns>.ignoreDifferences), whose fields Argo CD never compares.
func newIgnorer(cfg *config.Config) (*ignorer, error) {
	ig := &ignorer{rules: slices.Clone(defaultIgnores), regenerated: map[string]map[manifest.Key][]string{}}
	argoRule := func(d config.IgnoreDifference, ns string) ignoreRule {
		return ignoreRule{reason: fmt.Sprintf("the Applications' ignoreDifferences (%s)", d.Kind), targetNS: ns, argo: &d}
	}
	for _, d := range cfg.ArgoCD.IgnoreDifferences {
		ig.rules = append(ig.rules, argoRule(d, ""))
	}
	for _, ns := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		for _, d := range cfg.Namespaces[ns].IgnoreDifferences {
			ig.rules = append(ig.rules, argoRule(d, ns))
		}
	}
	for i, d := range cfg.Diff.Ignore {
		object, err := d.ObjectGlobs()
		if err != nil {
			return nil, err
		}
		r := ignoreRule{reason: fmt.Sprintf("diff.ignore rule %d (%s)", i+1, d.Object), object: object, pointers: d.Pointers}
		for _, p := range d.Patterns {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, err
			}
			r.patterns = append(r.patterns, re)
		}
		ig.rules = append(ig.rules, r)
	}
	return ig, nil
}

// hidden returns why the change from b to h (the same object of target)
// is hidden, "" when it is shown: every field that changed is ignored.
func (ig *ignorer) hidden(target string, k manifest.Key, b, h map[string]any) string {
	if ig == nil {
		return ""
	}
	changed := jsonptr.Changed("", b, h)
	if len(changed) == 0 {
		return ""
	}
	reasons := map[string]bool{}
	var alone []string
	for _, p := range changed {
		if slices.Contains(ig.regenerated[target][k], p) {
			reasons["regenerated on every render"] = true
			continue
		}
		_, ns, _ := strings.Cut(target, "/")
		r := ig.rule(ns, k, p)
		if r == nil {
			return ""
		}
		if r.alone {
			alone = append(alone, r.reason)
		} else {
			reasons[r.reason] = true
		}
	}
	if len(reasons) > 0 && len(alone) > 0 {
		return "" // a checksum changed with something else: show it all
	}
	for _, a := range alone {
		reasons[a] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(reasons)), ", ")
}

// rule is the first rule that ignores field p of the object k of a
// target of namespace ns.
func (ig *ignorer) rule(ns string, k manifest.Key, p string) *ignoreRule {
	for i := range ig.rules {
		r := &ig.rules[i]
		if r.argo != nil {
			if (r.targetNS == "" || r.targetNS == ns) && r.argo.Selects(k.Group, k.Kind, k.Namespace, k.Name) && r.argo.Covers(p) {
				return r
			}
			continue
		}
		matches := r.targetNS == "" || r.targetNS == ns
		for j, part := range []string{k.Group, k.Kind, k.Namespace, k.Name} {
			if g := r.object[j]; g != nil && !g.Match(part) {
				matches = false
			}
		}
		if !matches {
			continue
		}
		for _, ptr := range r.pointers {
			if p == ptr || strings.HasPrefix(p, ptr+"/") {
				return r
			}
		}
		for _, re := range r.patterns {
			if re.MatchString(p) {
				return r
			}
		}
	}
	return nil
}

// regenerate finds, for each head rendering that calls an unstable
// function (render.Result.Unstable), the fields that differ on a second
// rendering of the same input: they are regenerated on every render.
func (ig *ignorer) regenerate(ctx context.Context, r *render.Renderer, results []*render.Result) {
	for _, first := range results {
		if first.Err != nil || len(first.Unstable) == 0 {
			continue
		}
		second, err := r.Render(ctx, &first.Target)
		if err != nil {
			continue // the first rendering stands; nothing is hidden
		}
		by := map[manifest.Key]map[string]any{}
		for i := range second.Objects {
			o := &second.Objects[i]
			by[keyIn(o, first.Target.Namespace)] = o.Content
		}
		fields := map[manifest.Key][]string{}
		for i := range first.Objects {
			o := &first.Objects[i]
			k := keyIn(o, first.Target.Namespace)
			if c, ok := by[k]; ok {
				if f := jsonptr.Changed("", o.Content, c); len(f) > 0 {
					fields[k] = f
				}
			}
		}
		ig.regenerated[first.Target.Name()] = fields
	}
}
