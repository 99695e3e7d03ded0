package lint

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/repotool/repotool/pkg/admission"
)

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

// inCluster is mutations made in another cluster with the same policies
// (as remembered), naming this cluster's policies and bindings.
func (sc admittedScope) inCluster(mutations []admission.Mutation) []admission.Mutation {
	out := make([]admission.Mutation, len(mutations))
	for i, m := range mutations {
		m.PolicyRef = sc.refs[admission.KindMutatingPolicy+"/"+m.Policy]
		m.BindingRef = sc.refs[admission.KindMutatingBinding+"/"+m.Binding]
		out[i] = m
	}
	return out
}

// remembered is mutations as an object's admission is remembered for
// other clusters: without their params, but for the mark of one that read
// secret data.
func remembered(mutations []admission.Mutation) []admission.Mutation {
	out := make([]admission.Mutation, len(mutations))
	for i, m := range mutations {
		read := mutationReadsSecrets(m)
		m.ParamRef = nil
		if read {
			m.ParamRef = secretParam{}
		}
		out[i] = m
	}
	return out
}

// admit puts each object some policy may match to the set, reporting the
// violations and the drift, and returns the bindings whose param is
// missing with the objects they would deny. An object admitted without a
// decision is remembered (admittedKey): the same object in a cluster with
// the same policies is not evaluated again. The objects are admitted on
// every core, each with a budget of its own (admitAll), and their outcomes
// taken in object order, the run's budget charged with each object's cost
// as evaluating one object after the other would spend it: the object at
// which it runs out (or one skipped once the budget was spent) is admitted
// again with what is left of it, so that it runs out at the same policy.
func (ac *admissionCheck) admit(v *clusterView, set *admission.Set, sc admittedScope, rest []*placed, report, drift func(Finding)) map[*admissionRef][]string {
	a := ac.run
	missing := map[*admissionRef][]string{}
	items := ac.admissionItems(set, sc, rest)
	outcomes := admitAll(ac.ctx, set, items, ac.budget)
	budget := v.celBudget(ac.budget)
	defer func(before int64) { v.celSpent("the admission policies", budget.Spent()-before) }(budget.Spent())
	for i, it := range items {
		if ac.ctx.Err() != nil {
			return missing
		}
		if ac.remembered(it.key) {
			ac.admittedAgain(v, it.p, sc, a.admitted[it.key], drift)
			continue
		}
		admitted := outcomes[i].admitted
		if outcomes[i].skipped || outcomes[i].exceeded || budget.Spent()+outcomes[i].cost >= budget.Limit() {
			admitted = set.Admit(admission.WithBudget(ac.ctx, budget), admission.Input{Content: it.c, Ref: &admissionRef{p: it.p, content: it.c}, Normalized: true})
		} else {
			budget.Charge(outcomes[i].cost)
		}
		decisions := admitted.Decisions
		if n := len(decisions); n > 0 && decisions[n-1].BudgetExceeded {
			f := ac.budgetFinding(v.name, it.p, decisions[n-1])
			if ac.problem != nil {
				ac.problem(f)
			}
			report(f)
			return missing // the rest of the cluster is not checked: the finding fails the run
		}
		ac.admittedOnce(v, set, it, admitted, missing, report, drift)
	}
	return missing
}

// remembered reports whether the object of key was admitted before with
// what the caller needs of it: its mutations, and the admitted object for
// Admit.
func (ac *admissionCheck) remembered(key [sha256.Size]byte) bool {
	facts, ok := ac.run.admitted[key]
	return ok && (ac.admitted == nil || facts.object != nil || len(facts.mutations) == 0)
}

// admissionItem is an object to admit: its key (admittedKey) and content
// as the API server decodes it.
type admissionItem struct {
	p   *placed
	key [sha256.Size]byte
	c   map[string]any
}

// admissionItems are the objects of rest some policy of set may match, in
// order.
func (ac *admissionCheck) admissionItems(set *admission.Set, sc admittedScope, rest []*placed) []admissionItem {
	var items []admissionItem
	for _, p := range rest {
		if !set.MayMatch(schema.FromAPIVersionAndKind(p.o.APIVersion, p.o.Kind)) {
			continue
		}
		text := textOf(p.o)
		it := admissionItem{p: p, key: admittedKey(p, text, sc.env, sc.namespaces[p.ns])}
		if !ac.remembered(it.key) {
			if it.c = ac.run.sharedContent(p, text); it.c == nil {
				continue
			}
		}
		items = append(items, it)
	}
	return items
}

// itemOutcome is one object admitted with a budget of its own.
type itemOutcome struct {
	admitted admission.Admitted
	cost     int64
	exceeded bool
	// skipped: not admitted ahead, the run's budget being spent by the
	// objects admitted so far.
	skipped bool
}

// admitAll admits the items not admitted before (no content: remembered)
// on every core, each with a budget of limit of its own, once per
// distinct object. Once the objects admitted so far have spent limit
// together, the others are skipped: the run's budget is spent, and the
// work stays bounded (limit, and what the objects being admitted then
// spend) however many objects there are.
func admitAll(ctx context.Context, set *admission.Set, items []admissionItem, limit int64) []itemOutcome {
	out := make([]itemOutcome, len(items))
	first := map[[sha256.Size]byte]int{}
	var work []int
	for i, it := range items {
		if _, seen := first[it.key]; !seen && it.c != nil {
			first[it.key] = i
			work = append(work, i)
		}
	}
	var spent atomic.Int64
	eachParallel(ctx, min(runtime.GOMAXPROCS(0), max(len(work), 1)), len(work), func(k int) {
		i := work[k]
		if spent.Load() >= limit {
			out[i].skipped = true
			return
		}
		b := admission.NewBudget(limit)
		it := items[i]
		a := set.Admit(admission.WithBudget(ctx, b), admission.Input{Content: it.c, Ref: &admissionRef{p: it.p, content: it.c}, Normalized: true})
		out[i] = itemOutcome{admitted: a, cost: b.Spent(), exceeded: b.Exceeded()}
		spent.Add(b.Spent())
	})
	for i, it := range items {
		if j, ok := first[it.key]; ok && j != i {
			out[i] = out[j] // the same object again: the same outcome and cost (decisions name no object)
		}
	}
	return out
}

// admittedOnce reports what admitting one object found, and remembers an
// object admitted without a decision.
func (ac *admissionCheck) admittedOnce(v *clusterView, set *admission.Set, it admissionItem, admitted admission.Admitted,
	missing map[*admissionRef][]string, report, drift func(Finding)) {
	a, p, c := ac.run, it.p, it.c
	decisions := admitted.Decisions
	if len(decisions) == 0 && len(a.admitted) < maxSharedContents {
		facts := &admittedFacts{mutations: remembered(admitted.Mutations)}
		if ac.admitted != nil && len(admitted.Mutations) > 0 {
			facts.object = admitted.Object
		}
		a.admitted[it.key] = facts
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
		ac.reportDrift(v, p, c, admitted.Mutations, drift)
	}
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
	if c := ac.run.sharedContent(p, textOf(p.o)); c != nil {
		ac.reportDrift(v, p, c, mutations, drift)
	}
}

// budgetFinding is the error of a cluster whose admission policies spent
// the run's CEL budget, at the policy that was running.
func (ac *admissionCheck) budgetFinding(cluster string, p *placed, d admission.Decision) Finding {
	kind, field := "ValidatingAdmissionPolicy", "/spec/validations"
	if d.Mutating {
		kind, field = admission.KindMutatingPolicy, "/spec/mutations"
	}
	f := ac.admissionFinding(d.PolicyRef.(*admissionRef), field)
	f.Severity = SeverityError
	f.Message = fmt.Sprintf("the cluster's admission policies %s (%d cost units) while %s %s ran on %s in cluster %s: the cluster's "+
		"remaining objects were not checked; make the policies cheaper (fewer or smaller params, no nested iteration over large lists)",
		admission.ErrBudget, ac.budget, kind, d.Policy, p.o.ID(), cluster)
	return f
}
