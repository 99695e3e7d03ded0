package admission

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"
)

func inputs(t testing.TB, docs ...string) []Input {
	t.Helper()
	var out []Input
	for i, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, Input{Content: m, Ref: i})
	}
	return out
}

const deployment = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: team-a}, spec: {replicas: 7, template: {spec: {containers: [{name: a, image: "nginx:1.27"}, {name: b, image: "envoy:latest"}, {name: c, image: "redis:7"}]}}}}`

func policy(validations string) string {
	return `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy, metadata: {name: p}, spec: {matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: ["*"], operations: [CREATE], resources: [deployments]}]}, variables: [{name: images, expression: "object.spec.template.spec.containers.map(c, c.image)"}], validations: ` + validations + `}}`
}

const binding = `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicyBinding, metadata: {name: b}, spec: {policyName: p, validationActions: [Deny]}}`

// TestProblems: what the API server refuses, and what cannot be evaluated,
// is a problem on the object at fault, naming the field.
func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, version      string
		policies, bindings []string
		want               string // in the message
		field              string
	}{
		{"does not compile", "", []string{policy(`[{expression: "object.spec.replicas <="}]`)}, nil, "spec.validations[0].expression does not compile", "/spec/validations/0/expression"},
		{"not a bool", "", []string{policy(`[{expression: "object.spec.replicas"}]`)}, nil, "must evaluate to bool", "/spec/validations/0/expression"},
		{"newer than the cluster", "v1.30.2", []string{policy(`[{expression: "ip('10.0.0.1').family() == 4"}]`)}, nil, "does not compile", "/spec/validations/0/expression"},
		{"unknown field", "", []string{strings.Replace(policy(`[{expression: "true"}]`), "variables:", "variabels:", 1)}, nil, `unknown field "spec.variabels"`, ""},
		{"missing policy", "", nil, []string{binding}, "binds ValidatingAdmissionPolicy p, which the cluster does not have", "/spec/policyName"},
		{"paramRef without action", "", []string{policy(`[{expression: "true"}]`)}, []string{strings.Replace(binding, "policyName: p,", "policyName: p, paramRef: {name: x},", 1)}, "no parameterNotFoundAction", "/spec/paramRef"},
		{"authorizer", "", []string{policy(`[{expression: "authorizer.group('').resource('pods').check('get').allowed()"}]`)}, []string{binding}, "asks the authorizer", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := New(inputs(t, tc.policies...), inputs(t, tc.bindings...), &Cluster{}, Options{KubeVersion: tc.version, Resource: testResource})
			if len(problems) != 1 || !strings.Contains(problems[0].Message, tc.want) || problems[0].Field != tc.field || problems[0].Fix == "" {
				t.Fatalf("problems %+v; want one containing %q at %q, with a fix", problems, tc.want, tc.field)
			}
		})
	}
	_, problems := New(inputs(t, policy(`[{expression: "ip('10.0.0.1').family() == 4"}]`)), nil, &Cluster{}, Options{KubeVersion: "v1.33.0", Resource: testResource})
	if len(problems) != 0 {
		t.Errorf("a 1.33 cluster compiles ip(): %+v", problems)
	}
}

// TestFields: a failed validation names the fields it read, narrowed to
// the list elements that fail alone.
func TestFields(t *testing.T) {
	for _, tc := range []struct{ validations, want string }{
		{`[{expression: "object.spec.replicas <= 5"}]`, "/spec/replicas"},
		{`[{expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"}]`, "/spec/template/spec/containers/1/image"},
		{`[{expression: "variables.images.all(i, !i.endsWith(':latest'))"}]`, "/spec/template/spec/containers/1/image"},
		{`[{expression: "size(object.spec.template.spec.containers) < 3"}]`, "/spec/template/spec/containers"},
	} {
		set, problems := New(inputs(t, policy(tc.validations)), inputs(t, binding), &Cluster{Namespaces: map[string]map[string]string{"team-a": nil}}, Options{Resource: testResource})
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		ds := set.Evaluate(context.Background(), inputs(t, deployment)[0])
		if len(ds) != 1 {
			t.Fatalf("%s: decisions %+v", tc.validations, ds)
		}
		if got := set.Fields(context.Background(), ds[0]); !slices.Contains(got, tc.want) || strings.Contains(tc.want, "containers/") && len(got) != 1 {
			t.Errorf("%s: fields %q, want %q", tc.validations, got, tc.want)
		}
	}
}

// TestFieldsListOfLists: a validation over a list that is itself an
// element of a list is narrowed to the failing element too (it once
// panicked, taking the list's parent for a map).
func TestFieldsListOfLists(t *testing.T) {
	p := `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy, metadata: {name: p}, spec: {matchConstraints: {resourceRules: [{apiGroups: [example.com], apiVersions: ["*"], operations: [CREATE], resources: [widgets]}]}, validations: [{expression: "object.spec.matrix[1].all(x, x > 0)"}]}}`
	set, problems := New(inputs(t, p), inputs(t, binding), &Cluster{Namespaces: map[string]map[string]string{"team-a": nil}}, Options{Resource: testResource})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	ds := set.Evaluate(context.Background(), inputs(t, `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: team-a}, spec: {matrix: [[1, 2], [3, -1, 4]]}}`)[0])
	if len(ds) != 1 {
		t.Fatalf("decisions %+v", ds)
	}
	if got := set.Fields(context.Background(), ds[0]); !slices.Equal(got, []string{"/spec/matrix/1/1"}) {
		t.Errorf("fields %q, want [/spec/matrix/1/1]", got)
	}
}

// TestNeverLogs evaluates policies that take every error path (message
// expressions that fail or quote the object, runtime errors, the cost
// limit) and requires that nothing reached klog.
func TestNeverLogs(t *testing.T) {
	var logged bytes.Buffer
	klog.SetOutput(&logged)
	defer klog.SetOutput(nil)
	for _, c := range loadParityCases(t) {
		ours(t, c)
	}
	set, _ := New(inputs(t, policy(`[{expression: "false", messageExpression: "'x'.repeat(10000)"}, {expression: "false", messageExpression: "'a\nb' + string(object.spec.replicas)"}, {expression: "false", messageExpression: "object.nothere"}]`)), inputs(t, binding), &Cluster{}, Options{Resource: testResource})
	if ds := set.Evaluate(context.Background(), inputs(t, deployment)[0]); len(ds) != 3 {
		t.Fatalf("decisions %+v", ds)
	}
	klog.Flush()
	if logged.Len() > 0 {
		t.Errorf("klog got %q", logged.String())
	}
}

// TestDefaults: the API server's defaults for the fields policies read
// most are applied before evaluation, as the API server applies them
// before admission (k8s.io/kubernetes' SetDefaults_Container and
// SetDefaults_Deployment): the pull policy from the image's tag (Always for
// latest or none, IfNotPresent for a tag or a digest; a registry's port is
// not a tag), and one replica.
func TestDefaults(t *testing.T) {
	for image, want := range map[string]string{
		"nginx": "Always", "nginx:latest": "Always", "nginx:1.27": "IfNotPresent", "registry:5000/nginx": "Always",
		"registry:5000/nginx:1.2": "IfNotPresent", "nginx@sha256:abcd": "IfNotPresent", "nginx:1.27@sha256:abcd": "IfNotPresent",
	} {
		c, err := NormalizeJSON([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"a","image":"` + image + `"}]}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		spec := c["spec"].(map[string]any)
		container := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		if container["imagePullPolicy"] != want || spec["replicas"] != int64(1) {
			t.Errorf("%s: imagePullPolicy %v, replicas %v; want %s, 1", image, container["imagePullPolicy"], spec["replicas"], want)
		}
	}
}
