package lint

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// The cross-object rules look at one cluster at a time: every object its
// targets render, where each lands (namespace, tier), and what the cluster
// has besides (its namespaces, repository manifests, objects repotool.yaml
// declares as provided outside Git). clusterView is computed once per run
// and shared by those rules.

// placed is a rendered object with the target that renders it and the
// namespace it lands in ("" for a cluster-scoped kind).
type placed struct {
	res *render.Result
	o   *manifest.Object
	ns  string
}

// clusterView is what one cluster runs.
type clusterView struct {
	name string
	plan *argocd.Plan
	// planErr is why no plan could be made (generate would fail too).
	planErr error
	// objs are the objects Argo CD applies; excluded those its
	// resource.exclusions leave out (argocd.Excluded), which no other rule
	// counts as deployed.
	objs     []placed
	excluded []excludedObject
	// complete is true when every target of the cluster rendered in this
	// run: rules that report something missing run only then.
	complete bool
	// namespaces are the cluster's namespaces with their labels.
	namespaces map[string]map[string]string
	provided   []config.ProvidedObject
	// secrets is the guard of the values decrypted for the cluster's
	// renderings, made when first asked for (guard).
	secrets *render.Guard
	// cel is the CEL budget the cluster's admission policies and
	// lint.checks share for the run (celBudget), spent what each of them
	// spent.
	cel   *admission.Budget
	spent map[string]int64
}

// celBudget is the cluster's CEL budget, of limit cost units: its
// admission policies and every lint.checks check spend it together, so
// that no number of checks multiplies what a change can make a run spend.
func (v *clusterView) celBudget(limit int64) *admission.Budget {
	if v.cel == nil {
		v.cel, v.spent = admission.NewBudget(limit), map[string]int64{}
	}
	return v.cel
}

// celSpent records what one of the budget's spenders spent.
func (v *clusterView) celSpent(who string, cost int64) { v.spent[who] += cost }

// costliest names the spenders of the cluster's budget that spent the
// most, at most three, with what each spent.
func (v *clusterView) costliest() string {
	who := slices.Collect(maps.Keys(v.spent))
	slices.SortFunc(who, func(a, b string) int { return cmp.Or(cmp.Compare(v.spent[b], v.spent[a]), strings.Compare(a, b)) })
	var out []string
	for _, w := range who[:min(3, len(who))] {
		if v.spent[w] > 0 {
			out = append(out, fmt.Sprintf("%s (%d)", w, v.spent[w]))
		}
	}
	return strings.Join(out, ", ")
}

// guard is the guard of every value decrypted for the renderings of the
// cluster: what a policy or check evaluated over its objects (params
// and objects of other targets among them) may quote.
func (v *clusterView) guard() *render.Guard {
	if v.secrets == nil {
		v.secrets = render.NewGuard()
		var last *render.Result
		add := func(p placed) {
			if p.res != last {
				v.secrets.Add(p.res)
				last = p.res
			}
		}
		for _, p := range v.objs {
			add(p)
		}
		for _, e := range v.excluded {
			add(e.placed)
		}
	}
	return v.secrets
}

// newClusterViews makes the views of the clusters results render.
func newClusterViews(repo *layout.Repo, crds *manifest.CRDs, results []*render.Result) []*clusterView {
	var views []*clusterView
	byName := map[string]*clusterView{}
	for _, res := range results {
		cl := res.Target.Cluster
		v := byName[cl]
		if v == nil {
			v = &clusterView{name: cl, namespaces: map[string]map[string]string{}, provided: repo.Config.ClusterProvided(cl)}
			v.plan, v.planErr = argocd.NewPlan(repo, crds, cl)
			byName[cl] = v
		}
		if res.Err != nil {
			continue
		}
		layoutCluster, _ := repo.Cluster(cl)
		for i := range res.Objects {
			o := &res.Objects[i]
			ns := o.NamespaceIn(res.Target.Namespace)
			if v.plan != nil && v.plan.ClusterScoped(o.Group(), o.Kind) {
				ns = ""
			}
			p := placed{res: res, o: o, ns: ns}
			if why, ok := argocd.Excluded(&repo.Config, layoutCluster, o.Group(), o.Kind); ok {
				v.excluded = append(v.excluded, excludedObject{p, why})
				continue
			}
			v.objs = append(v.objs, p)
		}
	}
	for _, v := range byName {
		cl, _ := repo.Cluster(v.name)
		rendered := map[string]bool{}
		for _, res := range results {
			if res.Target.Cluster == v.name && res.Err == nil {
				rendered[res.Target.Namespace] = true
			}
		}
		v.complete = cl != nil
		if cl != nil {
			for _, ns := range cl.Namespaces {
				v.complete = v.complete && rendered[ns]
				v.addNamespace(ns, nil)
			}
		}
		for _, p := range v.objs {
			if p.o.Kind == "Namespace" && p.o.APIVersion == "v1" {
				v.addNamespace(p.o.Name, stringMap(contentOf(p.o), "metadata", "labels"))
			}
			if p.ns != "" {
				v.addNamespace(p.ns, nil)
			}
		}
		views = append(views, v)
	}
	slices.SortFunc(views, func(a, b *clusterView) int { return strings.Compare(a.name, b.name) })
	return views
}

// excludedObject is a rendered object Argo CD leaves out, and why.
type excludedObject struct {
	placed
	why argocd.Exclusion
}

// addNamespace records a namespace and labels it has, with the label the
// API server sets on every namespace.
func (v *clusterView) addNamespace(ns string, labels map[string]string) {
	l := v.namespaces[ns]
	if l == nil {
		l = map[string]string{"kubernetes.io/metadata.name": ns}
		v.namespaces[ns] = l
	}
	for k, x := range labels {
		l[k] = x
	}
}

// sortedNamespaces returns the cluster's namespaces, sorted.
func (v *clusterView) sortedNamespaces() []string {
	var out []string
	for ns := range v.namespaces {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// isProvided reports whether repotool.yaml declares kind namespace/name as
// present in the cluster outside Git.
func (v *clusterView) isProvided(kind, namespace, name string) bool {
	return slices.ContainsFunc(v.provided, func(p config.ProvidedObject) bool { return p.Provides(kind, namespace, name) })
}

// location is where a rendered object is, for a finding or a related
// location.
func (at *positions) location(p placed, msg string) finding.Location {
	return finding.Location{File: p.o.Source.String(), Line: at.objectPosition(p.o), Object: p.o.ID(), Target: p.res.Target.Name(), Message: msg}
}

// objectFinding is a finding about rendered object p.
func (at *positions) objectFinding(p placed, msg string) Finding {
	return Finding{File: p.o.Source.String(), Line: at.objectPosition(p.o), Object: p.o.ID(), Targets: []string{p.res.Target.Name()}, Message: msg}
}

// Access to parsed content.

func mapAt(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

func strAt(m map[string]any, keys ...string) string {
	if len(keys) == 0 {
		return ""
	}
	s, _ := mapAt(m, keys[:len(keys)-1]...)[keys[len(keys)-1]].(string)
	return s
}

func listAt(m map[string]any, keys ...string) []any {
	if len(keys) == 0 {
		return nil
	}
	l, _ := mapAt(m, keys[:len(keys)-1]...)[keys[len(keys)-1]].([]any)
	return l
}

func boolAt(m map[string]any, keys ...string) bool {
	if len(keys) == 0 {
		return false
	}
	b, _ := mapAt(m, keys[:len(keys)-1]...)[keys[len(keys)-1]].(bool)
	return b
}

func stringMap(m map[string]any, keys ...string) map[string]string {
	out := map[string]string{}
	for k, v := range mapAt(m, keys...) {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// selects reports whether a Kubernetes label selector (matchLabels,
// matchExpressions) selects labels; an empty selector selects everything.
func selects(sel map[string]any, labels map[string]string) bool {
	for k, v := range mapAt(sel, "matchLabels") {
		if s, _ := v.(string); labels[k] != s {
			return false
		}
	}
	for _, e := range listAt(sel, "matchExpressions") {
		expr, _ := e.(map[string]any)
		key, op := strAt(expr, "key"), strAt(expr, "operator")
		val, has := labels[key]
		var values []string
		for _, x := range listAt(expr, "values") {
			if s, ok := x.(string); ok {
				values = append(values, s)
			}
		}
		switch op {
		case "In":
			if !has || !slices.Contains(values, val) {
				return false
			}
		case "NotIn":
			if has && slices.Contains(values, val) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// matchesAny reports whether s matches one of the regular expressions (as
// whole-string matches); one that does not compile matches nothing.
func matchesAny(patterns []string, s string) bool {
	for _, p := range patterns {
		if re, err := regexp.Compile("^(?:" + strings.TrimSpace(p) + ")$"); err == nil && re.MatchString(s) {
			return true
		}
	}
	return false
}

// targetsOf are the names of the targets of results, for findings about a
// whole cluster.
func targetsOf(results []*render.Result, cluster string) []string {
	var out []string
	for _, r := range results {
		if r.Target.Cluster == cluster {
			out = append(out, r.Target.Name())
		}
	}
	return out
}
