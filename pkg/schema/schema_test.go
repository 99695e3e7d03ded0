package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/repotool/repotool/pkg/schema"
)

func TestEmbeddedVersions(t *testing.T) {
	minors := schema.Minors()
	if diff := cmp.Diff([]int{29, 30, 31, 32, 33, 34, 35, 36, 37}, minors); diff != "" {
		t.Fatalf("embedded minors (-want +got):\n%s", diff)
	}
	for _, m := range minors {
		e, err := schema.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(e.KubernetesVersion, fmt.Sprintf("v1.%d.", m)) {
			t.Errorf("v1.%d.json.gz holds %s", m, e.KubernetesVersion)
		}
		for _, k := range []string{"apps/v1/Deployment", "v1/ConfigMap", "networking.k8s.io/v1/Ingress", "apiextensions.k8s.io/v1/CustomResourceDefinition", "autoscaling/v2/HorizontalPodAutoscaler"} {
			if _, ok := e.Kinds[k]; !ok {
				t.Errorf("1.%d has no schema for %s", m, k)
			}
		}
		// A recursive definition (JSONSchemaProps) inlines without looping.
		crd, ok := e.Schema("apiextensions.k8s.io/v1", "CustomResourceDefinition")
		if !ok || len(crd) == 0 {
			t.Errorf("1.%d: no CRD schema", m)
		}
	}
	if _, err := schema.Load(12); err == nil {
		t.Error("Load(12) succeeded")
	}
}

// TestKubernetes137: 1.37's schema has the kinds that went GA in it
// (certificates.k8s.io/v1 ClusterTrustBundle, storagemigration.k8s.io/v1)
// and not the versions it stopped serving (networking.k8s.io/v1beta1
// ServiceCIDR, storage.k8s.io/v1beta1 VolumeAttributesClass), which 1.36
// still has.
func TestKubernetes137(t *testing.T) {
	v136, err := schema.Load(36)
	if err != nil {
		t.Fatal(err)
	}
	v137, err := schema.Load(37)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"certificates.k8s.io/v1/ClusterTrustBundle", "storagemigration.k8s.io/v1/StorageVersionMigration", "resource.k8s.io/v1/DeviceTaintRule"} {
		if _, ok := v137.Kinds[k]; !ok {
			t.Errorf("1.37 has no schema for %s", k)
		}
		if _, ok := v136.Kinds[k]; ok {
			t.Errorf("1.36 has a schema for %s", k)
		}
	}
	for _, k := range []string{"networking.k8s.io/v1beta1/ServiceCIDR", "storage.k8s.io/v1beta1/VolumeAttributesClass", "certificates.k8s.io/v1alpha1/ClusterTrustBundle"} {
		if _, ok := v137.Kinds[k]; ok {
			t.Errorf("1.37 has a schema for %s, which it no longer serves", k)
		}
		if _, ok := v136.Kinds[k]; !ok {
			t.Errorf("1.36 has no schema for %s", k)
		}
	}
}

func TestMinorFor(t *testing.T) {
	// Each asked twice: the second answer is the remembered one.
	for range 2 {
		for in, want := range map[string]int{"v1.27.3": 29, "1.33.5": 33, "v1.33.4+k3s1": 33, "v1.36.0": 36, "v1.37.2": 37, "v1.40.1": 37} {
			if got, err := schema.MinorFor(in); err != nil || got != want {
				t.Errorf("MinorFor(%q) = %d, %v; want %d", in, got, err, want)
			}
		}
		if _, err := schema.MinorFor("latest"); err == nil {
			t.Error("MinorFor(latest) succeeded")
		}
	}
	// Past the versions it keeps, MinorFor still answers.
	for i := range 100 {
		if got, err := schema.MinorFor(fmt.Sprintf("v1.%d.%d", 33, i)); err != nil || got != 33 {
			t.Errorf("MinorFor(v1.33.%d) = %d, %v; want 33", i, got, err)
		}
	}
	if m := schema.Minors(); len(m) == 0 || m[0] != 29 {
		t.Fatalf("Minors() = %v", m)
	} else {
		m[0] = -1 // a caller's copy
		if schema.Minors()[0] != 29 {
			t.Error("Minors returns the remembered slice itself")
		}
	}
}

const validDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1.0
          ports: [{containerPort: 8080, name: http}]
          readinessProbe:
            httpGet: {path: /, port: http}
          resources:
            limits: {cpu: 1, memory: 64Mi}
            requests: {cpu: 100m}
`

func validate(t *testing.T, v *schema.Validator, kube, doc string) schema.Result {
	t.Helper()
	return v.Validate(kube, []byte(doc))
}

func TestValidateBuiltin(t *testing.T) {
	v, err := schema.New(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	tests := []struct {
		name   string
		doc    string
		status schema.Status
		errors []schema.FieldError
	}{
		{"valid: quantities as numbers, int-or-string, null timestamp", validDeployment, schema.Valid, nil},
		{"unknown field", strings.Replace(validDeployment, "image: web:1.0", "image: web:1.0\n          imagePullPolcy: Always", 1), schema.Invalid,
			[]schema.FieldError{{Path: "/spec/template/spec/containers/0", Message: "additional properties 'imagePullPolcy' not allowed", Unknown: []string{"imagePullPolcy"}}}},
		{"wrong type", strings.Replace(validDeployment, "replicas: 2", "replicas: two", 1), schema.Invalid,
			[]schema.FieldError{{Path: "/spec/replicas", Message: "got string, want null or integer"}}},
		{"missing required field", strings.Replace(validDeployment, "        - name: web\n          image", "        - image", 1), schema.Invalid,
			[]schema.FieldError{{Path: "/spec/template/spec/containers/0", Message: "missing property 'name'"}}},
		{"several problems, each at its own path", strings.Replace(strings.Replace(validDeployment, "replicas: 2", "replicas: two", 1), "containerPort: 8080", "containerPort: {}", 1), schema.Invalid,
			[]schema.FieldError{
				{Path: "/spec/replicas", Message: "got string, want null or integer"},
				{Path: "/spec/template/spec/containers/0/ports/0/containerPort", Message: "got object, want null or integer"},
			}},
		{"unknown top-level field", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndate:\n  a: b\n", schema.Invalid,
			[]schema.FieldError{{Path: "", Message: "additional properties 'date' not allowed", Unknown: []string{"date"}}}},
		{"duplicate key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n  a: c\n", schema.Error, nil},
		{"no schema for the kind", "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n", schema.NoSchema, nil},
		{"removed API version", "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: i\n", schema.NoSchema, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, "v1.33.2", tt.doc)
			if r.Status != tt.status {
				t.Fatalf("status = %s (%v %v), want %s", r.Status, r.Err, r.Errors, tt.status)
			}
			if diff := cmp.Diff(tt.errors, r.Errors, ignoreKeyword); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			// Validated again, the result is the one remembered: the same.
			again := validate(t, v, "v1.33.2", tt.doc)
			if again.Status != r.Status || fmt.Sprint(again.Err) != fmt.Sprint(r.Err) || again.DuplicateKey != r.DuplicateKey || !cmp.Equal(again.Errors, r.Errors) {
				t.Errorf("validated again: %+v, the first time %+v", again, r)
			}
		})
	}
}

func TestValidateCustomResources(t *testing.T) {
	v, err := schema.New(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var v1, v2 map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
		"spec":{"type":"object","required":["size"],"properties":{"size":{"type":"string","enum":["small","large"]}}}}}`), &v1)
	json.Unmarshal([]byte(`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
		"spec":{"type":"object","properties":{"size":{"type":"integer"},"port":{"x-kubernetes-int-or-string":true},"extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}`), &v2)
	v.AddCRD("acme.io", "v1", "Widget", v1)
	v.AddCRD("acme.io", "v2", "Widget", v2)
	tests := []struct {
		doc    string
		status schema.Status
		errors []schema.FieldError
	}{
		{"apiVersion: acme.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: small}\n", schema.Valid, nil},
		{"apiVersion: acme.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: medium}\n", schema.Invalid, []schema.FieldError{{Path: "/spec/size", Message: "value must be one of 'small', 'large'"}}},
		{"apiVersion: acme.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n", schema.Invalid, []schema.FieldError{{Path: "/spec", Message: "missing property 'size'"}}},
		{"apiVersion: acme.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: small, colour: red}\n", schema.Invalid, []schema.FieldError{{Path: "/spec", Message: "additional properties 'colour' not allowed", Unknown: []string{"colour"}}}},
		{"apiVersion: acme.io/v2\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3, port: http, extra: {any: [1]}}\n", schema.Valid, nil},
		{"apiVersion: acme.io/v2\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3, port: 8080}\n", schema.Valid, nil},
		{"apiVersion: acme.io/v2\nkind: Widget\nmetadata: {name: w}\nspec: {size: large}\n", schema.Invalid, []schema.FieldError{{Path: "/spec/size", Message: "got string, want null or integer"}}},
		{"apiVersion: acme.io/v3\nkind: Widget\nmetadata: {name: w}\n", schema.NoSchema, nil}, // a version the CRD does not serve
	}
	for _, tt := range tests {
		r := validate(t, v, "v1.34.0", tt.doc)
		if r.Status != tt.status {
			t.Errorf("%s: status = %s (%v %v), want %s", tt.doc, r.Status, r.Err, r.Errors, tt.status)
			continue
		}
		if diff := cmp.Diff(tt.errors, r.Errors, ignoreKeyword); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tt.doc, diff)
		}
	}
}

// TestOfflineAndLazy validates with every proxy pointing nowhere (any
// network use would fail) and checks that only the schemas of the kinds
// validated were written.
func TestOfflineAndLazy(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"} {
		t.Setenv(k, "http://127.0.0.1:1")
	}
	t.Setenv("NO_PROXY", "")
	dir := t.TempDir()
	v, err := schema.New(schema.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if r := validate(t, v, "v1.30.1", validDeployment); r.Status != schema.Valid {
			t.Fatalf("status %s: %v %v", r.Status, r.Err, r.Errors)
		}
	}
	if r := validate(t, v, "v1.30.1", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n"); r.Status != schema.Valid {
		t.Fatalf("status %s: %v %v", r.Status, r.Err, r.Errors)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	if diff := cmp.Diff([]string{"builtin/v1.30/deployment-apps-v1.json", "builtin/v1.30/service-v1.json"}, files); diff != "" {
		t.Errorf("schemas written (-want +got):\n%s", diff)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Error("Close removed a folder the caller gave")
	}
}

func TestConvert(t *testing.T) {
	var in map[string]any
	json.Unmarshal([]byte(`{"type":"object","description":"d","properties":{
		"a":{"type":"string","enum":["x"]},
		"b":{"format":"int-or-string","type":"string"},
		"c":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"d":{"type":"integer"}}},
		"m":{"type":"object","additionalProperties":{"type":"string"}},
		"l":{"type":"array","items":{"$ref":"#/definitions/X"}}}}`), &in)
	got := schema.Convert(in)
	want := map[string]any{
		"type":                 []any{"object", "null"},
		"additionalProperties": false,
		"properties": map[string]any{
			"a": map[string]any{"type": []any{"string", "null"}, "enum": []any{"x", nil}},
			"b": map[string]any{"type": []any{"string", "integer", "null"}},
			"c": map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{"d": map[string]any{"type": []any{"integer", "null"}}}},
			"m": map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": []any{"string", "null"}}},
			"l": map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"$ref": "#/definitions/X"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Convert (-want +got):\n%s", diff)
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}}}`))
	f.Add([]byte(`{"oneOf":[{"type":"string"},{"properties":{"x":{}}}],"items":{"items":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in map[string]any
		if json.Unmarshal(data, &in) != nil || in == nil {
			return
		}
		out := schema.Convert(in)
		if _, err := json.Marshal(schema.Inline(map[string]any{"a": out}, "a")); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(schema.ConvertCRD(in)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCRDStructuralRules validates custom resources against CRDs as the API
// server reads them: apiVersion, kind and metadata are accepted at the root
// (and in embedded resources) whether or not the schema lists them, metadata
// is checked as ObjectMeta, a null is accepted anywhere (the API server
// prunes it), enums included, and defaults are applied before validating.
func TestCRDStructuralRules(t *testing.T) {
	v, err := schema.New(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var crd map[string]any
	// Like many real CRDs: only spec and status at the root.
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"mode":{"type":"string","enum":["a","b"]},
			"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
			"target":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"x":{"type":"integer"}}}}}}},
		"status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`), &crd)
	v.AddCRD("acme.io", "v1", "Gadget", crd)
	var named map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":5}}}}}`), &named)
	v.AddCRD("acme.io", "v1", "Short", named)
	// Defaults, as gateway-api and external-secrets write them: required
	// fields with defaults, and a oneOf told apart by a defaulted field.
	var defaulted map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","required":["length","upper"],"properties":{
		"length":{"type":"integer","default":24},
		"upper":{"type":"boolean","default":false},
		"addresses":{"type":"array","items":{"type":"object",
			"oneOf":[{"properties":{"type":{"enum":["IP"]},"value":{"format":"ipv4"}}},{"properties":{"type":{"not":{"enum":["IP"]}}}}],
			"properties":{"type":{"type":"string","default":"IP"},"value":{"type":"string"}}}}}}}}`), &defaulted)
	v.AddCRD("acme.io", "v1", "Defaulted", defaulted)
	tests := []struct {
		name, doc string
		status    schema.Status
		errors    []schema.FieldError
	}{
		{"root fields the schema does not list", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g, namespace: ns, labels: {a: b}, annotations: {c: d}}\nspec: {mode: a}\n", schema.Valid, nil},
		{"null where an enum is", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {mode: null}\n", schema.Valid, nil},
		{"enum still checked", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {mode: c}\n", schema.Invalid, []schema.FieldError{{Path: "/spec/mode", Message: "value must be one of 'a', 'b'"}}},
		{"unknown metadata field", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g, labelz: {a: b}}\n", schema.Invalid, []schema.FieldError{{Path: "/metadata", Message: "additional properties 'labelz' not allowed", Unknown: []string{"labelz"}}}},
		{"label values are strings", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g, labels: {a: {b: c}}}\n", schema.Invalid, []schema.FieldError{{Path: "/metadata/labels/a", Message: "got object, want null or string"}}},
		{"embedded resources", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n  template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {anything: 1}}\n  target: {apiVersion: v1, kind: Thing, metadata: {name: t}, spec: {x: 1}}\n", schema.Valid, nil},
		{"embedded resource still strict", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n  target: {apiVersion: v1, kind: Thing, spec: {x: 1, z: 2}}\n", schema.Invalid, []schema.FieldError{{Path: "/spec/target/spec", Message: "additional properties 'z' not allowed", Unknown: []string{"z"}}}},
		{"status preserved", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nstatus: {whatever: [1, 2]}\n", schema.Valid, nil},
		{"unknown root field", "apiVersion: acme.io/v1\nkind: Gadget\nmetadata: {name: g}\nspek: {}\n", schema.Invalid, []schema.FieldError{{Path: "", Message: "additional properties 'spek' not allowed", Unknown: []string{"spek"}}}},
		{"required fields with defaults", "apiVersion: acme.io/v1\nkind: Defaulted\nmetadata: {name: d}\nspec: {}\n", schema.Valid, nil},
		{"a null where a default is", "apiVersion: acme.io/v1\nkind: Defaulted\nmetadata: {name: d}\nspec: {length: null}\n", schema.Valid, nil},
		{"a default in every array item", "apiVersion: acme.io/v1\nkind: Defaulted\nmetadata: {name: d}\nspec:\n  addresses: [{value: 1.2.3.4}, {type: Hostname, value: example.com}, {value: 5.6.7.8}]\n", schema.Valid, nil},
		{"a defaulted field selects the alternative", "apiVersion: acme.io/v1\nkind: Defaulted\nmetadata: {name: d}\nspec:\n  addresses: [{value: example.com}]\n", schema.Invalid, []schema.FieldError{
			{Path: "/spec/addresses/0", Message: "'oneOf' failed, none matched"},
			{Path: "/spec/addresses/0/type", Message: "'not' failed (the field is not set: this is the CRD's default)"},
			{Path: "/spec/addresses/0/value", Message: "is not a valid ipv4"},
		}},
		{"duplicate keys are still found with defaults", "apiVersion: acme.io/v1\nkind: Defaulted\nmetadata: {name: d}\nspec: {length: 1, length: 2}\n", schema.Error, nil},
		{"the CRD's constraint on metadata.name", "apiVersion: acme.io/v1\nkind: Short\nmetadata: {name: too-long-a-name, labels: {a: b}}\n", schema.Invalid, []schema.FieldError{{Path: "/metadata/name", Message: "must be at most 5 characters long"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, "v1.34.0", tt.doc)
			if r.Status != tt.status {
				t.Fatalf("status = %s (%v %v), want %s", r.Status, r.Err, r.Errors, tt.status)
			}
			if diff := cmp.Diff(tt.errors, r.Errors, ignoreKeyword); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := crd["properties"].(map[string]any)["metadata"]; ok {
		t.Error("ConvertCRD modified the CRD's schema")
	}
}

// ignoreKeyword leaves FieldError.Keyword and Missing out of comparisons
// about paths and messages (TestMessagesNeverQuoteValues checks them).
var ignoreKeyword = cmpopts.IgnoreFields(schema.FieldError{}, "Keyword", "Missing")
