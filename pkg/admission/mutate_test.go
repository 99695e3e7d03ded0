package admission

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func parse(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// tierPolicies are two mutating policies whose result depends on their
// order: the first copies a label the second sets.
const tierPolicies = `
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingAdmissionPolicy
  metadata: {name: a-copy-tier}
  spec:
    reinvocationPolicy: %s
    matchConstraints:
      resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    mutations:
      - patchType: ApplyConfiguration
        applyConfiguration:
          expression: >
            Object{metadata: Object.metadata{annotations: {"tier": has(object.metadata.labels) && "tier" in object.metadata.labels ?
            object.metadata.labels["tier"] : "none"}}}
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingAdmissionPolicy
  metadata: {name: b-set-tier}
  spec:
    matchConstraints:
      resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    mutations:
      - patchType: ApplyConfiguration
        applyConfiguration:
          expression: 'Object{metadata: Object.metadata{labels: {"tier": "web"}}}'
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingAdmissionPolicyBinding
  metadata: {name: a-copy-tier}
  spec: {policyName: a-copy-tier}
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingAdmissionPolicyBinding
  metadata: {name: b-set-tier}
  spec: {policyName: b-set-tier}
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  metadata: {name: tier-annotated}
  spec:
    matchConstraints:
      resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    validations:
      - {expression: "object.metadata.annotations['tier'] == 'web'", message: "the tier annotation is not web"}
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata: {name: tier-annotated}
  spec: {policyName: tier-annotated, validationActions: [Deny]}
`

// tierSet is the Set of tierPolicies under reinvocation policy r for a
// cluster of kubeVersion with gates.
func tierSet(t *testing.T, r, kubeVersion string, gates map[string]bool) (*Set, []Problem) {
	t.Helper()
	var docs []map[string]any
	if err := yaml.Unmarshal([]byte(fmt.Sprintf(tierPolicies, r)), &docs); err != nil {
		t.Fatal(err)
	}
	var policies, bindings []Input
	for _, d := range docs {
		in := Input{Content: d, Ref: d["metadata"].(map[string]any)["name"]}
		if strings.HasSuffix(d["kind"].(string), "Binding") {
			bindings = append(bindings, in)
		} else {
			policies = append(policies, in)
		}
	}
	return New(policies, bindings, &Cluster{Namespaces: parityNamespaces}, Options{Resource: testResource, KubeVersion: kubeVersion, FeatureGates: gates})
}

// TestMutatingOrder: policies run in name order, IfNeeded ones again after
// a later one changed the object, and the validating policies see the
// result.
func TestMutatingOrder(t *testing.T) {
	cm := parse(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: team-a}, data: {mode: fast}}`)
	for _, tc := range []struct {
		reinvocation, tier string
		mutations          []string
		denied             bool
	}{
		{"IfNeeded", "web", []string{"a-copy-tier [/metadata/annotations]", "b-set-tier [/metadata/labels]", "a-copy-tier (again) [/metadata/annotations/tier]"}, false},
		{"Never", "none", []string{"a-copy-tier [/metadata/annotations]", "b-set-tier [/metadata/labels]"}, true},
	} {
		t.Run(tc.reinvocation, func(t *testing.T) {
			set, problems := tierSet(t, tc.reinvocation, "v1.36.0", nil)
			if len(problems) > 0 {
				t.Fatalf("problems: %+v", problems)
			}
			a := set.Admit(context.Background(), Input{Content: cm})
			var got []string
			for _, m := range a.Mutations {
				again := ""
				if m.Reinvoked {
					again = " (again)"
				}
				got = append(got, fmt.Sprintf("%s%s %v", m.Policy, again, m.Fields))
			}
			if !slices.Equal(got, tc.mutations) {
				t.Errorf("mutations:\n got  %q\n want %q", got, tc.mutations)
			}
			if tier := a.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["tier"]; tier != tc.tier {
				t.Errorf("tier annotation %v, want %s", tier, tc.tier)
			}
			if denied := len(a.Decisions) == 1 && a.Decisions[0].Policy == "tier-annotated" && !a.Decisions[0].Mutating; denied != tc.denied {
				t.Errorf("decisions %+v; want the validating policy to deny: %v", a.Decisions, tc.denied)
			}
			if _, ok := cm["metadata"].(map[string]any)["annotations"]; ok {
				t.Error("Admit changed its input")
			}
		})
	}
}

// TestMutatingEnabled: mutating policies run by the cluster's version and
// feature gate, and are a problem where they do not.
func TestMutatingEnabled(t *testing.T) {
	for _, tc := range []struct {
		version string
		gates   map[string]bool
		on      bool
	}{
		{"v1.37.2", nil, true},
		{"v1.36.0", nil, true},
		{"v1.36.0", map[string]bool{FeatureMutatingAdmissionPolicy: false}, false},
		{"v1.35.4", nil, false},
		{"v1.34.1", map[string]bool{FeatureMutatingAdmissionPolicy: true}, true},
		{"v1.31.0", map[string]bool{FeatureMutatingAdmissionPolicy: true}, false},
	} {
		set, problems := tierSet(t, "Never", tc.version, tc.gates)
		if set.Mutates() != tc.on {
			t.Errorf("%s %v: mutates %v, want %v", tc.version, tc.gates, set.Mutates(), tc.on)
		}
		if tc.on != (len(problems) == 0) {
			t.Errorf("%s %v: problems %+v", tc.version, tc.gates, problems)
		}
		for _, p := range problems {
			if !strings.Contains(p.Message, "does not run mutating policies") || !strings.Contains(p.Fix, "featureGates") {
				t.Errorf("%s: problem %q (%s)", tc.version, p.Message, p.Fix)
			}
		}
	}
}

// TestMutatingProblems: what the API server refuses of a mutating policy
// or binding is a problem at its field.
func TestMutatingProblems(t *testing.T) {
	policy := func(spec string) Input {
		return Input{Ref: "p", Content: parse(t, `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingAdmissionPolicy, metadata: {name: p}, spec: `+spec+`}`)}
	}
	rules := `matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}`
	for _, tc := range []struct {
		name, spec, field, message string
	}{
		{"no mutations", `{` + rules + `}`, "/spec", "spec.mutations is empty"},
		{"no match constraints", `{mutations: [{patchType: JSONPatch, jsonPatch: {expression: "[]"}}]}`, "/spec", "spec.matchConstraints is missing"},
		{"unknown patch type", `{` + rules + `, mutations: [{patchType: Merge}]}`, "/spec/mutations/0/patchType", `patchType "Merge"`},
		{"patch type without its expression", `{` + rules + `, mutations: [{patchType: JSONPatch, applyConfiguration: {expression: "Object{}"}}]}`,
			"/spec/mutations/0", "without jsonPatch.expression"},
		{"bad reinvocation policy", `{` + rules + `, reinvocationPolicy: Always, mutations: [{patchType: JSONPatch, jsonPatch: {expression: "[]"}}]}`,
			"/spec/reinvocationPolicy", `reinvocationPolicy "Always"`},
		{"uncompilable", `{` + rules + `, mutations: [{patchType: JSONPatch, jsonPatch: {expression: "[JSONPatch{op: 1}]"}}]}`,
			"/spec/mutations/0/jsonPatch/expression", "spec.mutations[0].jsonPatch.expression does not compile"},
		{"wrong return type", `{` + rules + `, mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "'text'"}}]}`,
			"/spec/mutations/0/applyConfiguration/expression", "does not compile"},
		{"unknown field", `{` + rules + `, mutate: true, mutations: [{patchType: JSONPatch, jsonPatch: {expression: "[]"}}]}`, "", `unknown field "spec.mutate"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := New([]Input{policy(tc.spec)}, nil, &Cluster{}, Options{Resource: testResource})
			if len(problems) != 1 || problems[0].Field != tc.field || !strings.Contains(problems[0].Message, tc.message) || problems[0].Ref != "p" {
				t.Errorf("problems %+v; want one at %q saying %q", problems, tc.field, tc.message)
			}
		})
	}
	binding := Input{Ref: "b", Content: parse(t, `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingAdmissionPolicyBinding, metadata: {name: b}, `+
		`spec: {policyName: missing}}`)}
	_, problems := New(nil, []Input{binding}, &Cluster{}, Options{Resource: testResource})
	if len(problems) != 1 || !problems[0].Missing || problems[0].Field != "/spec/policyName" {
		t.Errorf("an unbound binding: %+v", problems)
	}
}

// TestMutatingBudget: mutations spend the run's CEL budget; the one that
// spends it ends the object's admission with a budget decision.
func TestMutatingBudget(t *testing.T) {
	policy := Input{Ref: "p", Content: parse(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: costly}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: {"n": string([1,2,3,4,5,6,7,8,9,10].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x * y)).size())}}}
`)}
	binding := Input{Ref: "b", Content: parse(t, `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingAdmissionPolicyBinding, metadata: {name: costly}, `+
		`spec: {policyName: costly}}`)}
	set, problems := New([]Input{policy}, []Input{binding}, &Cluster{Namespaces: parityNamespaces}, Options{Resource: testResource})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	cm := parse(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: team-a}}`)
	if a := set.Admit(context.Background(), Input{Content: cm}); len(a.Decisions) > 0 || len(a.Mutations) != 1 {
		t.Fatalf("without a budget: %+v", a)
	}
	b := NewBudget(50)
	a := set.Admit(WithBudget(context.Background(), b), Input{Content: cm})
	if len(a.Decisions) != 1 || !a.Decisions[0].BudgetExceeded || !a.Decisions[0].Mutating || a.Decisions[0].Policy != "costly" || a.Object != nil {
		t.Errorf("with a budget of 50: %+v", a)
	}
	if !b.Exceeded() {
		t.Error("the budget is not spent")
	}
}
