package lint

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/repotool/repotool/pkg/admission"
)

// admittedFacts are what admission made of an object that no policy
// denies, warns about or audits: the mutating policies' changes, and the
// admitted object when a caller of Admit asks for it.
type admittedFacts struct {
	mutations []admission.Mutation
	object    map[string]any
}

// admittedScope is what of a cluster an object's admission depends on
// besides the object: its policies, bindings and params (env, see
// clusterEnv), its namespaces' labels, and where its policies and bindings
// are (refs, by kind and name), to name them in this cluster's findings.
type admittedScope struct {
	env        []byte
	namespaces map[string]map[string]string
	refs       map[string]any
}

// policyRefs are the Refs of a cluster's policies and bindings, by kind
// and name.
func policyRefs(policies, bindings []admission.Input) map[string]any {
	out := map[string]any{}
	for _, list := range [][]admission.Input{policies, bindings} {
		for _, in := range list {
			kind, _ := in.Content["kind"].(string)
			meta, _ := in.Content["metadata"].(map[string]any)
			name, _ := meta["name"].(string)
			out[kind+"/"+name] = in.Ref
		}
	}
	return out
}

// inCluster is mutations made in another cluster with the same policies,
// naming this cluster's policies and bindings.
func (sc admittedScope) inCluster(mutations []admission.Mutation) []admission.Mutation {
	out := make([]admission.Mutation, len(mutations))
	for i, m := range mutations {
		m.PolicyRef = sc.refs[admission.KindMutatingPolicy+"/"+m.Policy]
		m.BindingRef = sc.refs[admission.KindMutatingBinding+"/"+m.Binding]
		m.ParamRef = nil
		out[i] = m
	}
	return out
}

// admit puts each object some policy may match to the set, reporting the
// violations and the drift, and returns the bindings whose param is
// missing with the objects they would deny. An object admitted without a
// decision is remembered (admittedKey): the same object in a cluster with
// the same policies is not evaluated again.
func (ac *admissionCheck) admit(v *clusterView, set *admission.Set, sc admittedScope, rest []*placed, report, drift func(Finding)) map[*admissionRef][]string {
	a := ac.run
	missing := map[*admissionRef][]string{}
	ctx := admission.WithBudget(ac.ctx, admission.NewBudget(ac.budget))
	for _, p := range rest {
		if !set.MayMatch(schema.FromAPIVersionAndKind(p.o.APIVersion, p.o.Kind)) {
			continue
		}
		key := admittedKey(p, sc.env, sc.namespaces[p.ns])
		if facts, ok := a.admitted[key]; ok && (ac.admitted == nil || facts.object != nil || len(facts.mutations) == 0) {
			ac.admittedAgain(v, p, sc, facts, drift)
			continue
		}
		c := a.content(p)
		if c == nil {
			continue
		}
		admitted := set.Admit(ctx, admission.Input{Content: c, Ref: &admissionRef{p: p, content: c}, Normalized: true})
		decisions := admitted.Decisions
		if n := len(decisions); n > 0 && decisions[n-1].BudgetExceeded {
			f := ac.budgetFinding(v.name, p, decisions[n-1])
			if ac.problem != nil {
				ac.problem(f)
			}
			report(f)
			return missing // the rest of the cluster is not checked: the finding fails the run
		}
		if len(decisions) == 0 && len(a.admitted) < maxSharedContents {
			facts := &admittedFacts{mutations: admitted.Mutations}
			if ac.admitted != nil && len(admitted.Mutations) > 0 {
				facts.object = admitted.Object
			}
			a.admitted[key] = facts
		}
		if ac.admitted != nil {
			ac.admitted(p, admitted)
		}
		ref := &admissionRef{p: p, content: c, mutations: admitted.Mutations}
		if admitted.Object != nil {
			ref.content = admitted.Object
		}
		for _, d := range decisions {
			if d.IsMissingParam() {
				if !v.complete {
					continue // the param may be in a target this run does not render
				}
				b := d.BindingRef.(*admissionRef)
				missing[b] = append(missing[b], p.o.ID())
				continue
			}
			report(ac.violation(set, v.name, ref, d))
		}
		if admitted.Object != nil {
			ac.drift(v, p, c, admitted.Mutations, drift)
		}
	}
	return missing
}

// admittedAgain reports what the mutating policies do to p, admitted the
// same way in another cluster (facts).
func (ac *admissionCheck) admittedAgain(v *clusterView, p *placed, sc admittedScope, facts *admittedFacts, drift func(Finding)) {
	if len(facts.mutations) == 0 {
		return
	}
	mutations := sc.inCluster(facts.mutations)
	if ac.admitted != nil {
		ac.admitted(p, admission.Admitted{Object: facts.object, Mutations: mutations})
	}
	if c := ac.run.content(p); c != nil {
		ac.drift(v, p, c, mutations, drift)
	}
}
