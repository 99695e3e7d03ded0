package admission

import (
	"context"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzPolicies: any policy, binding and object, however malformed, is
// decoded, compiled and evaluated without a panic or a hang (the CEL cost
// limits bound every evaluation).
func FuzzPolicies(f *testing.F) {
	f.Add(policy(`[{expression: "object.spec.replicas <= 5"}]`), binding, deployment)
	f.Add(policy(`[{expression: "variables.images.all(i, i.endsWith(':1'))", messageExpression: "variables.images.join(',')"}]`), binding, deployment)
	f.Add(`{kind: ValidatingAdmissionPolicy, spec: {matchConstraints: {}}}`, `{spec: {paramRef: {selector: {matchExpressions: [{key: a, operator: Bogus}]}}}}`, `{}`)
	f.Fuzz(func(t *testing.T, p, b, o string) {
		var pm, bm, om map[string]any
		if yaml.Unmarshal([]byte(p), &pm) != nil || yaml.Unmarshal([]byte(b), &bm) != nil || yaml.Unmarshal([]byte(o), &om) != nil || om == nil {
			return
		}
		set, _ := New([]Input{{Content: pm, Ref: 0}}, []Input{{Content: bm, Ref: 1}}, &Cluster{Namespaces: map[string]map[string]string{"team-a": {}}}, Options{Resource: testResource})
		for _, d := range set.Evaluate(context.Background(), Input{Content: om}) {
			set.Fields(context.Background(), d)
		}
	})
}
