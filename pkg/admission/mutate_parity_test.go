package admission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
)

// mutatingCase is one case of testdata/mutating-parity.yaml: policies and
// bindings without their apiVersion and kind, params in parity.yaml's
// shorthand.
type mutatingCase struct {
	Name     string           `json:"name"`
	Policies []map[string]any `json:"policies"`
	Bindings []map[string]any `json:"bindings"`
	Params   []map[string]any `json:"params"`
	Object   map[string]any   `json:"object"`
}

func loadMutatingCases(t testing.TB) []mutatingCase {
	return loadCases[mutatingCase](t, "testdata/mutating-parity.yaml")
}

// typed gives content its apiVersion and kind.
func typed(m map[string]any, kind string) map[string]any {
	out := map[string]any{"apiVersion": Group + "/v1", "kind": kind}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// admitCase runs the package on a case: the admitted object, or the
// first denial.
func admitCase(t *testing.T, c mutatingCase) (mutatedOutcome, Admitted) {
	var policies, bindings, objects []Input
	for _, p := range c.Policies {
		policies = append(policies, Input{Content: typed(p, KindMutatingPolicy), Ref: p["metadata"]})
	}
	for _, b := range c.Bindings {
		bindings = append(bindings, Input{Content: typed(b, KindMutatingBinding), Ref: b["metadata"]})
	}
	for _, p := range c.Params {
		content, err := toContent(expandParam(p))
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, Input{Content: content})
	}
	set, problems := New(policies, bindings, &Cluster{Namespaces: parityNamespaces, Objects: objects}, Options{Resource: testResource})
	for _, p := range problems {
		t.Errorf("problem: %s (%s)", p.Message, p.Fix)
	}
	a := set.Admit(context.Background(), Input{Content: c.Object})
	if len(a.Decisions) > 0 {
		if !a.Decisions[0].Mutating {
			t.Errorf("a validating decision without validating policies: %+v", a.Decisions[0])
		}
		return mutatedOutcome{Deny: a.Decisions[0].Message}, a
	}
	return mutatedOutcome{Object: a.Object}, a
}

// TestMutatingParity holds the objects the package admits, and its
// denials, to the API server's mutating policy plugin on every case of
// testdata/mutating-parity.yaml.
func TestMutatingParity(t *testing.T) {
	cases := loadMutatingCases(t)
	if len(cases) < 20 {
		t.Fatalf("%d cases; the bar is 20", len(cases))
	}
	changed, denied := 0, 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var policies []*admissionv1.MutatingAdmissionPolicy
			var bindings []*admissionv1.MutatingAdmissionPolicyBinding
			var params []*corev1.ConfigMap
			for _, p := range c.Policies {
				pol, prob := decodeMutatingPolicy(Input{Content: typed(p, KindMutatingPolicy)})
				if prob != nil {
					t.Fatal(prob.Message)
				}
				policies = append(policies, pol)
			}
			for _, b := range c.Bindings {
				bin, prob := decodeMutatingBinding(Input{Content: typed(b, KindMutatingBinding)})
				if prob != nil {
					t.Fatal(prob.Message)
				}
				bindings = append(bindings, bin)
			}
			for _, p := range c.Params {
				params = append(params, expandParam(p))
			}
			want := mutatingOracle(t, policies, bindings, parityNamespaces, params, c.Object)
			got, admitted := admitCase(t, c)
			if got.Deny != want.Deny {
				t.Errorf("denial:\n got  %q\n want %q", got.Deny, want.Deny)
			}
			gotJSON, _ := json.MarshalIndent(got.Object, "", " ")
			wantJSON, _ := json.MarshalIndent(want.Object, "", " ")
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("admitted object:\n got  %s\n want %s", gotJSON, wantJSON)
			}
			switch {
			case want.Deny != "":
				denied++
			case len(admitted.Mutations) > 0:
				changed++
			}
			if strings.Contains(c.Name, "denies") != (want.Deny != "") {
				t.Errorf("the case's name says whether it denies: the API server's denial is %q", want.Deny)
			}
		})
	}
	if changed < len(cases)/2 || denied < 4 {
		t.Errorf("%d cases change the object and %d deny, of %d: the cases do not exercise the mutations", changed, denied, len(cases))
	}
}
