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
