package lint

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// Admit puts the objects of results to the admission policies of their
// clusters, as the admission rules do, and returns those a mutating policy
// changes or denies, in target and object order. The policies of a cluster
// are read from all its renderings among results and from
// clusters.<c>.admissionPolicies, so results should hold every target of
// the clusters asked about. A policy, binding or file the cluster would
// refuse, or that cannot be read, is an error: the objects would be shown
// as no cluster stores them (a validating policy's problems are not: they
// change no object).
func Admit(ctx context.Context, repo *layout.Repo, results []*render.Result, opts Options) ([]Admitted, error) {
	var out []Admitted
	err := runAdmission(ctx, repo, results, opts, func(ac *admissionCheck) {
		ac.admitted = func(p *placed, a admission.Admitted) {
			if len(a.Mutations) > 0 || deniedByMutation(a) {
				out = append(out, admittedObject(p, a))
			}
		}
	})
	return out, err
}

// runAdmission puts the objects of results to their clusters' policies as
// the admission rules do, with ac's callbacks set by configure, for Admit
// and DriftIgnores; an error when a policy cannot be applied.
func runAdmission(ctx context.Context, repo *layout.Repo, results []*render.Result, opts Options, configure func(*admissionCheck)) error {
	in := buildInput(repo, results, opts, nil, nil)
	ac := &admissionCheck{ctx: ctx, repo: in.repo, results: results, at: in.at, budget: in.celBudget, run: newAdmissionRun()}
	var problems []string
	ac.problem = func(f Finding) { problems = append(problems, fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)) }
	configure(ac)
	for _, v := range in.clusterViews() {
		ac.checkCluster(v, func(Finding) {}, func(Finding) {})
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("the clusters' admission policies cannot all be applied (repotool lint reports them):\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// deniedByMutation reports whether a mutating policy denies the object.
func deniedByMutation(a admission.Admitted) bool {
	return len(a.Decisions) > 0 && a.Decisions[0].Mutating
}

// admittedObject is p as the mutating policies admit it: their changed
// fields taken from the admitted object and set in the rendered content.
func admittedObject(p *placed, a admission.Admitted) Admitted {
	out := Admitted{Target: p.res.Target.Name(), Object: objectIndex(p)}
	if deniedByMutation(a) {
		d := a.Decisions[0]
		out.Denied = fmt.Sprintf("MutatingAdmissionPolicy %s (binding %s) denies it: %s", d.Policy, d.Binding, d.StaticMessage)
		return out
	}
	var content any = contentOf(p.o)
	for _, m := range a.Mutations {
		c := AdmissionChange{Policy: m.Policy, Binding: m.Binding}
		for _, f := range m.Fields {
			tokens := jsonptr.Split(f)
			v, ok := jsonptr.Get(a.Object, tokens)
			content = jsonptr.With(content, tokens, v, !ok)
			if namesSecret(p.res, f) || mutationReadsSecrets(m) {
				f = "(a field whose name holds a secret value)"
			}
			c.Fields = append(c.Fields, f)
		}
		out.Changes = append(out.Changes, c)
	}
	out.Content, _ = content.(map[string]any)
	return out
}

// objectIndex is p's index in its rendering's objects.
func objectIndex(p *placed) int {
	for i := range p.res.Objects {
		if &p.res.Objects[i] == p.o {
			return i
		}
	}
	return -1
}

// DriftIgnores are the ignoreDifferences entries that cover what the
// clusters' mutating policies change in the objects of results and Argo
// CD would show as drift (the fields the rule admission-drift reports),
// by "cluster/application": one entry per object, with its group, kind,
// name and namespace and the fields' JSON pointers, entries and pointers
// sorted. Fields the configured ignoreDifferences cover are left out. A
// field whose name holds a secret value is an error: no entry may write it.
// results should hold every target of the clusters; a policy that cannot
// be applied is an error, as in Admit.
func DriftIgnores(ctx context.Context, repo *layout.Repo, results []*render.Result, opts Options) (map[string][]config.IgnoreDifference, error) {
	type object struct{ group, kind, namespace, name string }
	byApp := map[string]map[object][]string{}
	var secretKeyed []string
	err := runAdmission(ctx, repo, results, opts, func(ac *admissionCheck) {
		ac.driftEntry = func(cluster string, place argocd.Placement, p *placed, fields []string) {
			if slices.ContainsFunc(fields, func(f string) bool { return namesSecret(p.res, f) }) {
				secretKeyed = append(secretKeyed, fmt.Sprintf("%s in cluster %s", p.o.ID(), cluster))
				return
			}
			app := cluster + "/" + place.Application
			if byApp[app] == nil {
				byApp[app] = map[object][]string{}
			}
			k := object{p.o.Group(), p.o.Kind, place.Namespace, p.o.Name}
			byApp[app][k] = append(byApp[app][k], fields...)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(secretKeyed) > 0 {
		return nil, fmt.Errorf("a mutating policy changes a field whose name holds a secret value in %s: an ignoreDifferences entry would write "+
			"the secret into the Application; cover the field in repotool.yaml's ignoreDifferences with a jqPathExpression that does not name it, "+
			"or compare server-side (argocd.serverSideDiff)", strings.Join(secretKeyed, ", "))
	}
	out := map[string][]config.IgnoreDifference{}
	for app, objects := range byApp {
		for o, fields := range objects {
			slices.Sort(fields)
			out[app] = append(out[app], config.IgnoreDifference{Group: o.group, Kind: o.kind, Namespace: o.namespace, Name: o.name,
				JSONPointers: slices.Compact(fields)})
		}
		slices.SortFunc(out[app], func(a, b config.IgnoreDifference) int {
			return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
		})
	}
	return out, nil
}
