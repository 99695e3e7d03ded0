package admission_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/repotool/repotool/pkg/admission"
)

// TestCheckBudget: a check that iterates the cluster's objects three
// deep, run for each object, spends the run's budget and is stopped with
// ErrBudget, within seconds rather than minutes; a cheap check spends
// little and passes.
func TestCheckBudget(t *testing.T) {
	objs := make([]map[string]any, 300)
	for i := range objs {
		objs[i] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}}
	}
	objects := admission.NewObjects(objs)
	nested, err := admission.CompileCheck(`objects.all(a, objects.all(b, objects.all(c, a.metadata.name != "" || c.metadata.name != "")))`)
	if err != nil {
		t.Fatal(err)
	}
	b := admission.NewBudget(admission.RunBudget / 10) // the mechanism, in a tenth of the time
	ctx := admission.WithBudget(context.Background(), b)
	start := time.Now()
	var stopped int
	for i, o := range objs {
		if _, err := nested.Eval(ctx, o, objects); errors.Is(err, admission.ErrBudget) {
			stopped = i + 1
			break
		}
	}
	t.Logf("stopped at object %d after %s, %d units", stopped, time.Since(start), b.Spent())
	if stopped == 0 || !b.Exceeded() || b.Spent() > b.Limit()+1_000_000 {
		t.Fatalf("the budget did not stop the check (spent %d)", b.Spent())
	}
	if _, err := nested.Eval(ctx, objs[0], objects); !errors.Is(err, admission.ErrBudget) {
		t.Errorf("a spent budget evaluated again: %v", err)
	}

	cheap, err := admission.CompileCheck(`object.metadata.name.startsWith("cm-")`)
	if err != nil {
		t.Fatal(err)
	}
	b = admission.NewBudget(admission.RunBudget)
	ctx = admission.WithBudget(context.Background(), b)
	for _, o := range objs {
		if ok, err := cheap.Eval(ctx, o, objects); err != nil || !ok {
			t.Fatalf("cheap check: %v, %v", ok, err)
		}
	}
	if b.Exceeded() || b.Spent() == 0 || b.Spent() > 100_000 {
		t.Errorf("a cheap check over %d objects spent %d units", len(objs), b.Spent())
	}
}
