package admission

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCompile is the cost of compiling one policy (once per policy and
// Kubernetes version in a run).
func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p := policy(fmt.Sprintf(`[{expression: "object.spec.replicas <= %d"}]`, i))
		New(inputs(b, p), nil, &Cluster{}, Options{Resource: testResource, Compiler: NewCompiler()})
	}
}

// BenchmarkEvaluate is the cost of putting one Deployment to a bound
// policy: matching, normalizing, evaluating.
func BenchmarkEvaluate(b *testing.B) {
	set, _ := New(inputs(b, policy(`[{expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"}, {expression: "object.spec.replicas <= 10"}]`)), inputs(b, binding), &Cluster{Namespaces: map[string]map[string]string{"team-a": {}}}, Options{Resource: testResource})
	obj := inputs(b, deployment)[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.Evaluate(context.Background(), obj)
	}
}

// BenchmarkNoMatch is the cost of an object no policy matches.
func BenchmarkNoMatch(b *testing.B) {
	set, _ := New(inputs(b, policy(`[{expression: "false"}]`)), inputs(b, binding), &Cluster{}, Options{Resource: testResource})
	obj := inputs(b, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: team-a}, data: {a: "1"}}`)[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.Evaluate(context.Background(), obj)
	}
}

// BenchmarkAdmit is the cost of admitting one Deployment through two
// mutating policies, an apply configuration (every container pulls
// always, reinvoked if needed) and a JSON patch (a label), and the
// validating policy of BenchmarkEvaluate on the result.
func BenchmarkAdmit(b *testing.B) {
	var policies, bindings []Input
	for _, c := range loadMutatingCases(b) {
		if c.Name != "label merged by an apply configuration" && c.Name != "image registry rewritten by a JSON patch with a variable" {
			continue
		}
		for _, p := range c.Policies {
			policies = append(policies, Input{Content: typed(p, KindMutatingPolicy)})
		}
		for _, bn := range c.Bindings {
			bindings = append(bindings, Input{Content: typed(bn, KindMutatingBinding)})
		}
	}
	policies = append(policies, inputs(b, policy(`[{expression: "object.spec.replicas <= 10"}]`))...)
	bindings = append(bindings, inputs(b, binding)...)
	set, problems := New(policies, bindings, &Cluster{Namespaces: parityNamespaces}, Options{Resource: testResource})
	if len(problems) > 0 || len(policies) != 3 {
		b.Fatalf("%d policies, problems %v", len(policies), problems)
	}
	obj := inputs(b, deployment)[0]
	if a := set.Admit(context.Background(), obj); len(a.Mutations) != 2 {
		b.Fatalf("mutations %+v", a.Mutations)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.Admit(context.Background(), obj)
	}
}
