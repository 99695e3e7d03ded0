package admission

import (
	"context"
	"strings"
	"testing"
)

// TestPolicyBudget: policies share the budget their evaluation's context
// carries; once it is spent, Evaluate stops at the policy that was
// running and says so (BudgetExceeded) instead of letting later objects
// pass unchecked, whatever the failurePolicy; without a budget nothing
// changes.
func TestPolicyBudget(t *testing.T) {
	costly := policy(`[{expression: "variables.images.all(a, variables.images.all(b, variables.images.all(c, a + b + c != '')))"}]`)
	costly = strings.Replace(costly, "spec: {", "spec: {failurePolicy: Ignore, ", 1)
	set, problems := New(inputs(t, costly), inputs(t, binding), &Cluster{Namespaces: map[string]map[string]string{"team-a": nil}}, Options{Resource: testResource})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	obj := inputs(t, deployment)[0]
	if ds := set.Evaluate(context.Background(), obj); len(ds) != 0 {
		t.Fatalf("without a budget: %+v", ds)
	}
	b := NewBudget(50)
	ctx := WithBudget(context.Background(), b)
	var stopped *Decision
	for range 100 {
		ds := set.Evaluate(ctx, obj)
		if n := len(ds); n > 0 && ds[n-1].BudgetExceeded {
			stopped = &ds[n-1]
			break
		}
	}
	if stopped == nil || stopped.Policy != "p" || !b.Exceeded() {
		t.Fatalf("the budget did not stop the policies (spent %d of %d): %+v", b.Spent(), b.Limit(), stopped)
	}
	if ds := set.Evaluate(ctx, obj); len(ds) != 1 || !ds[0].BudgetExceeded {
		t.Errorf("a spent budget evaluated again: %+v", ds)
	}
}
