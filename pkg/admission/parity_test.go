package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// parityCase is one case of testdata/parity.yaml, in its shorthand.
type parityCase struct {
	Name     string           `json:"name"`
	Policies []map[string]any `json:"policies"`
	Bindings []map[string]any `json:"bindings"`
	Params   []map[string]any `json:"params"`
	Object   map[string]any   `json:"object"`
}

// parityNamespaces are every case's namespaces, with the label the API
// server sets on each.
var parityNamespaces = map[string]map[string]string{
	"team-a":      {"kubernetes.io/metadata.name": "team-a", "env": "prod", "team": "a"},
	"team-b":      {"kubernetes.io/metadata.name": "team-b", "env": "dev"},
	"platform":    {"kubernetes.io/metadata.name": "platform"},
	"kube-system": {"kubernetes.io/metadata.name": "kube-system"},
}

func loadParityCases(t testing.TB) []parityCase {
	return loadCases[parityCase](t, "testdata/parity.yaml")
}

// loadCases reads a YAML list of cases.
func loadCases[C any](t testing.TB, file string) []C {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []C
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// groupOf is the API group of the cases' resources.
func groupOf(resource string, given any) string {
	if g, ok := given.(string); ok {
		return g
	}
	switch resource {
	case "deployments":
		return "apps"
	}
	return ""
}

func rule(resource string, m map[string]any) map[string]any {
	ops := m["operations"]
	if ops == nil {
		ops = []any{"CREATE", "UPDATE"}
	}
	r := map[string]any{"apiGroups": []any{groupOf(resource, m["group"])}, "apiVersions": []any{"*"}, "operations": ops, "resources": []any{resource}}
	if n, ok := m["resourceNames"]; ok {
		r["resourceNames"] = n
	}
	return r
}

// expandPolicy writes a case's policy shorthand out as the object.
func expandPolicy(m map[string]any) map[string]any {
	match := map[string]any{"resourceRules": []any{rule(m["rules"].(string), m)}}
	for _, k := range []string{"namespaceSelector", "objectSelector", "matchPolicy"} {
		if v, ok := m[k]; ok {
			match[k] = v
		}
	}
	if ex, ok := m["exclude"].(string); ok {
		match["excludeResourceRules"] = []any{rule(ex, map[string]any{})}
	}
	spec := map[string]any{"matchConstraints": match}
	for _, k := range []string{"failurePolicy", "matchConditions", "variables", "validations"} {
		if v, ok := m[k]; ok {
			spec[k] = v
		}
	}
	if pk, ok := m["paramKind"].(string); ok {
		spec["paramKind"] = map[string]any{"apiVersion": "v1", "kind": pk}
	}
	return map[string]any{"apiVersion": Group + "/v1", "kind": KindPolicy, "metadata": map[string]any{"name": m["name"]}, "spec": spec}
}

func expandBinding(m map[string]any) map[string]any {
	actions := m["actions"]
	if actions == nil {
		actions = []any{"Deny"}
	}
	spec := map[string]any{"policyName": m["policy"], "validationActions": actions}
	if r, ok := m["paramRef"]; ok {
		spec["paramRef"] = r
	}
	mr := map[string]any{}
	if s, ok := m["namespaceSelector"]; ok {
		mr["namespaceSelector"] = s
	}
	if ex, ok := m["exclude"].(string); ok {
		mr["excludeResourceRules"] = []any{rule(ex, map[string]any{})}
	}
	if len(mr) > 0 {
		spec["matchResources"] = mr
	}
	return map[string]any{"apiVersion": Group + "/v1", "kind": KindBinding, "metadata": map[string]any{"name": m["name"]}, "spec": spec}
}

func expandParam(m map[string]any) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: m["name"].(string), Namespace: m["namespace"].(string)}, Data: map[string]string{}}
	if l, ok := m["labels"].(map[string]any); ok {
		cm.Labels = map[string]string{}
		for k, v := range l {
			cm.Labels[k] = v.(string)
		}
	}
	for k, v := range m["data"].(map[string]any) {
		cm.Data[k] = v.(string)
	}
	return cm
}

// expandObject copies the case's object, a "@range N" list written out as
// the numbers 0..N-1.
func expandObject(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = expandObject(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandObject(e)
		}
		return out
	case string:
		var n int
		if _, err := fmt.Sscanf(x, "@range %d", &n); err == nil {
			out := make([]any, n)
			for i := range out {
				out[i] = int64(i)
			}
			return out
		}
	}
	return v
}

// ours runs the package on a case and words its decisions as the API
// server does.
func ours(t *testing.T, c parityCase) outcome {
	var policies, bindings, objects []Input
	for _, p := range c.Policies {
		policies = append(policies, Input{Content: expandPolicy(p), Ref: p["name"]})
	}
	for _, b := range c.Bindings {
		bindings = append(bindings, Input{Content: expandBinding(b), Ref: b["name"]})
	}
	for _, p := range c.Params {
		cm := expandParam(p)
		content, err := toContent(cm)
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, Input{Content: content, Ref: cm.Name})
	}
	set, problems := New(policies, bindings, &Cluster{Namespaces: parityNamespaces, Objects: objects}, Options{Resource: testResource})
	for _, p := range problems {
		t.Errorf("problem: %s (%s)", p.Message, p.Fix)
	}
	var out outcome
	for _, d := range set.Evaluate(context.Background(), Input{Content: expandObject(c.Object).(map[string]any)}) {
		for _, a := range d.Actions {
			switch a {
			case admissionv1.Deny:
				if out.Deny == "" {
					out.Deny = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.Policy, d.Binding, d.Message)
					if d.Binding == "" {
						out.Deny = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.Policy, d.Message)
					}
					out.Reason = d.Reason
					if out.Reason == "" {
						out.Reason = metav1.StatusReasonInvalid
					}
				}
			case admissionv1.Warn:
				out.Warnings = append(out.Warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", d.Policy, d.Binding, d.Message))
			case admissionv1.Audit:
				out.Audit = append(out.Audit, auditFailure{Message: d.Message, Policy: d.Policy, Binding: d.Binding, ExpressionIndex: d.Validation, ValidationActions: d.Actions})
			}
		}
	}
	return out
}

// TestParity holds the package's decisions to the API server's admission
// plugin's on every case of testdata/parity.yaml.
func TestParity(t *testing.T) {
	cases := loadParityCases(t)
	if len(cases) < 40 {
		t.Fatalf("%d parity cases; the bar is 40", len(cases))
	}
	denied := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var policies []*admissionv1.ValidatingAdmissionPolicy
			var bindings []*admissionv1.ValidatingAdmissionPolicyBinding
			var params []*corev1.ConfigMap
			for _, p := range c.Policies {
				pol, prob := decodePolicy(Input{Content: expandPolicy(p)})
				if prob != nil {
					t.Fatal(prob.Message)
				}
				policies = append(policies, pol)
			}
			for _, b := range c.Bindings {
				bin, prob := decodeBinding(Input{Content: expandBinding(b)})
				if prob != nil {
					t.Fatal(prob.Message)
				}
				bindings = append(bindings, bin)
			}
			for _, p := range c.Params {
				params = append(params, expandParam(p))
			}
			want := oracle(t, policies, bindings, parityNamespaces, params, expandObject(c.Object).(map[string]any))
			got := ours(t, c)
			t.Logf("%+v", want)
			slices.Sort(want.Warnings)
			slices.Sort(got.Warnings)
			if got.Deny != want.Deny || got.Reason != want.Reason {
				t.Errorf("denial:\n got  %q (%s)\n want %q (%s)", got.Deny, got.Reason, want.Deny, want.Reason)
			}
			if !slices.Equal(got.Warnings, want.Warnings) {
				t.Errorf("warnings:\n got  %q\n want %q", got.Warnings, want.Warnings)
			}
			if fmt.Sprint(got.Audit) != fmt.Sprint(want.Audit) {
				t.Errorf("audit:\n got  %+v\n want %+v", got.Audit, want.Audit)
			}
			if want.Deny != "" || len(want.Warnings) > 0 || len(want.Audit) > 0 {
				denied++
			}
			if strings.Contains(c.Name, "within") && want.Deny != "" {
				t.Errorf("a case named %q is denied", c.Name)
			}
		})
	}
	if denied < len(cases)/2 {
		t.Errorf("only %d of %d cases deny, warn or audit: the cases do not exercise the evaluator", denied, len(cases))
	}
}

// toContent converts a typed object to content.
func toContent(o any) (map[string]any, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(data, &out)
}
