package admission

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Check is a CEL expression over one object (object) and every object of
// its cluster (objects), true when the object passes: repotool.yaml's
// lint.checks. It is compiled in the environment ValidatingAdmissionPolicy
// expressions compile in, with Kubernetes' CEL libraries; each evaluation
// is held to Kubernetes' per-call cost limit (PerCallLimit), and a run to
// the budget its context carries (RunBudget).
type Check struct {
	prog cel.Program
}

var checkEnv = sync.OnceValues(func() (*cel.Env, error) {
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{cel.Variable("object", cel.DynType), cel.Variable("objects", cel.ListType(cel.DynType))},
	})
	if err != nil {
		return nil, err
	}
	return set.Env(environment.NewExpressions)
})

// CompileCheck compiles a check's expression, which must evaluate to a
// bool.
func CompileCheck(expr string) (*Check, error) {
	env, err := checkEnv()
	if err != nil {
		return nil, err
	}
	parsed, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("does not compile: %s", iss.Err())
	}
	if t := parsed.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("must evaluate to bool, not %s", t)
	}
	prog, err := env.Program(parsed, cel.CostLimit(celconfig.PerCallLimit), cel.InterruptCheckFrequency(celconfig.CheckFrequency),
		cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return nil, err
	}
	return &Check{prog: prog}, nil
}

// Objects are a cluster's objects as a check's objects variable, made once
// per cluster (see NewObjects).
type Objects struct{ val any }

// NewObjects prepares a cluster's objects (Normalize'd) for the checks run
// on its objects.
func NewObjects(objs []map[string]any) Objects {
	list := make([]any, len(objs))
	for i, o := range objs {
		list[i] = o
	}
	return Objects{types.DefaultTypeAdapter.NativeToValue(list)}
}

// Normalize returns content decoded as the API server decodes JSON into
// unstructured content (whole numbers as int64), which is what CEL sees.
func Normalize(content map[string]any) map[string]any {
	return normalizeContent(content)
}

// Eval runs the check on object (Normalize'd) within its cluster's
// objects: pass, or an error when the expression cannot be evaluated
// (which never quotes the object). Each evaluation is held to Kubernetes'
// per-evaluation cost limit and spends the budget ctx carries
// (WithBudget): once it is spent, Eval returns ErrBudget without
// evaluating.
func (c *Check) Eval(ctx context.Context, object map[string]any, objects Objects) (bool, error) {
	b := budgetOf(ctx)
	if b != nil && b.Exceeded() {
		return false, ErrBudget
	}
	out, det, err := c.prog.ContextEval(ctx, map[string]any{"object": object, "objects": objects.val})
	if b != nil {
		var cost int64
		if det != nil && det.ActualCost() != nil {
			cost = int64(*det.ActualCost())
		}
		b.spend(cost, celconfig.PerCallLimit, celconfig.PerCallLimit, false)
		if b.Exceeded() {
			return false, ErrBudget
		}
	}
	if err != nil {
		return false, fmt.Errorf("cannot be evaluated: %w", err)
	}
	pass, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("evaluates to %s, not bool", out.Type().TypeName())
	}
	return pass, nil
}
