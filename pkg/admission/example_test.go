package admission_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/admission"
)

func object(s string) map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// A cluster's replica limit, put to a Deployment as the API server would.
func Example() {
	policy := object(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
    - expression: "object.spec.replicas <= 5"
      messageExpression: "'replicas ' + string(object.spec.replicas) + ' is over 5'"
`)
	binding := object(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec: {policyName: replica-limit, validationActions: [Deny]}
`)
	deployment := object(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 8, template: {spec: {containers: [{name: web, image: "web:1.0"}]}}}
`)
	resource := func(gvk schema.GroupVersionKind) (string, bool, bool) {
		return "deployments", true, gvk.Kind == "Deployment"
	}
	set, problems := admission.New(
		[]admission.Input{{Content: policy, Ref: "policy.yaml"}},
		[]admission.Input{{Content: binding, Ref: "binding.yaml"}},
		&admission.Cluster{Namespaces: map[string]map[string]string{"shop": {"kubernetes.io/metadata.name": "shop"}}},
		admission.Options{KubeVersion: "v1.33.0", Resource: resource},
	)
	fmt.Println(len(problems), "problems")
	for _, d := range set.Evaluate(context.Background(), admission.Input{Content: deployment}) {
		fmt.Println(d.Actions, d.Policy, d.Message, set.Fields(context.Background(), d))
	}
	// Output:
	// 0 problems
	// [Deny] replica-limit replicas 8 is over 5 [/spec/replicas]
}
