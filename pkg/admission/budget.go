package admission

import (
	"context"
	"errors"
	"sync/atomic"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// RunBudget is the CEL cost one run may spend on a lint.checks expression,
// and on a cluster's admission policies together: twice what Kubernetes
// allows one policy binding's evaluation of one object
// (RuntimeCELCostBudget). Kubernetes calls that "roughly 1 second"; on
// unstructured objects it measured 3 to 4 s on a 2-core machine, so a run
// spends at most some seconds per check and per cluster. Each evaluation is
// also held to Kubernetes' own per-evaluation limit (PerCallLimit for a
// check, RuntimeCELCostBudget for a policy). The expressions come from the
// repository under review: without a budget for the run, three nested
// objects.all over a cluster's objects, run for each object, take minutes.
const RunBudget = RunBudgetFactor * celconfig.RuntimeCELCostBudget

// RunBudgetFactor is RunBudget in Kubernetes' RuntimeCELCostBudgets.
const RunBudgetFactor = 2

// Budget is a run's CEL cost budget, spent by the evaluations whose
// context carries it (WithBudget). Evaluations are counted in the order
// they run, so the same input exhausts it at the same place every run.
type Budget struct {
	limit    int64
	spent    atomic.Int64
	exceeded atomic.Bool
}

// NewBudget returns a budget of limit cost units (RunBudget for a run).
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Spent is the cost spent so far.
func (b *Budget) Spent() int64 { return b.spent.Load() }

// Limit is the budget's size.
func (b *Budget) Limit() int64 { return b.limit }

// Exceeded reports whether an evaluation was stopped because the budget
// ran out.
func (b *Budget) Exceeded() bool { return b.exceeded.Load() }

// ErrBudget is the error of an evaluation stopped by its run's budget.
var ErrBudget = errors.New("exceeded the run's CEL cost budget")

// remaining is what the next evaluation may spend: the per-evaluation
// limit, or less when the run's budget is nearly spent.
func (b *Budget) remaining(perEval int64) int64 { return min(perEval, b.limit-b.spent.Load()) }

// spend records cost; an evaluation that was capped by the run's budget
// (limit below perEval) and ran out exceeds it.
func (b *Budget) spend(cost, limit, perEval int64, ranOut bool) {
	b.spent.Add(cost)
	if ranOut && limit < perEval || b.spent.Load() >= b.limit {
		b.exceeded.Store(true)
	}
}

type budgetKey struct{}

// WithBudget returns ctx carrying b: Check.Eval and Set.Evaluate spend it.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

func budgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// budgeted is a policy's compiled condition held to the run's budget:
// each evaluation gets the per-evaluation limit, or what is left of the
// run's budget when that is less, and what it spends is counted.
type budgeted struct{ cel.ConditionEvaluator }

func (f budgeted) ForInput(ctx context.Context, attr *admission.VersionedAttributes, req *admissionv1.AdmissionRequest, vars cel.OptionalVariableBindings,
	ns *corev1.Namespace, perEval int64) ([]cel.EvaluationResult, int64, error) {
	b := budgetOf(ctx)
	if b == nil {
		return f.ConditionEvaluator.ForInput(ctx, attr, req, vars, ns, perEval)
	}
	limit := b.remaining(perEval)
	if limit <= 0 {
		b.exceeded.Store(true)
		return nil, -1, apiservercel.ErrOutOfBudget
	}
	res, left, err := f.ConditionEvaluator.ForInput(ctx, attr, req, vars, ns, limit)
	b.spend(limit-left, limit, perEval, left < 0 || errors.Is(err, apiservercel.ErrOutOfBudget))
	return res, perEval - (limit - left), err
}

// budgetedMutation is a mutation's compiled expression held to the run's
// budget, as budgeted holds a validation.
type budgetedMutation struct{ cel.MutatingEvaluator }

func (f budgetedMutation) ForInput(ctx context.Context, attr *admission.VersionedAttributes, req *admissionv1.AdmissionRequest,
	vars cel.OptionalVariableBindings, ns *corev1.Namespace, perEval int64) (cel.EvaluationResult, int64, error) {
	b := budgetOf(ctx)
	if b == nil {
		return f.MutatingEvaluator.ForInput(ctx, attr, req, vars, ns, perEval)
	}
	limit := b.remaining(perEval)
	if limit <= 0 {
		b.exceeded.Store(true)
		return cel.EvaluationResult{}, -1, apiservercel.ErrOutOfBudget
	}
	res, left, err := f.MutatingEvaluator.ForInput(ctx, attr, req, vars, ns, limit)
	b.spend(limit-left, limit, perEval, left < 0 || errors.Is(err, apiservercel.ErrOutOfBudget))
	return res, perEval - (limit - left), err
}

// Charge counts cost spent by an evaluation made with a budget of its own
// (one object admitted apart from the others, as lint admits a cluster's
// objects on every core), exceeding the budget when it reaches the limit.
func (b *Budget) Charge(cost int64) {
	if b.spent.Add(cost) >= b.limit {
		b.exceeded.Store(true)
	}
}
