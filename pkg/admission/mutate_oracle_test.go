package admission

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/discovery"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"
)

// The mutating oracle: the API server's MutatingAdmissionPolicy plugin
// (mutating.NewPlugin), behind the admission chain's reinvocation
// handler, over fake clients and informers that hold the case's policies,
// bindings, namespaces and params. Its schemas for apply configurations
// are the API server's own OpenAPI documents for core/v1, apps/v1 and
// batch/v1, as client-go's openapitest embeds them (the fake clientset's
// discovery serves none).

// mutatedOutcome is what the API server makes of one CREATE: the object it
// would store, or its denial.
type mutatedOutcome struct {
	Object map[string]any
	Deny   string
}

// withOpenAPI is a clientset whose discovery serves the embedded OpenAPI
// documents.
type withOpenAPI struct{ kubernetes.Interface }

func (c withOpenAPI) Discovery() discovery.DiscoveryInterfaces {
	return openAPIDiscovery{c.Interface.Discovery()}
}

type openAPIDiscovery struct{ discovery.DiscoveryInterfaces }

func (openAPIDiscovery) OpenAPIV3() openapi.Client { return openapitest.NewEmbeddedFileClient() }

// noConfig is the admission configuration of a plugin that has none.
type noConfig struct{}

func (noConfig) ConfigFor(string) (io.Reader, error) { return nil, nil }

// mutatingOracle runs the plugin on object.
func mutatingOracle(t *testing.T, policies []*admissionv1.MutatingAdmissionPolicy, bindings []*admissionv1.MutatingAdmissionPolicyBinding,
	namespaces map[string]map[string]string, params []*corev1.ConfigMap, object map[string]any) mutatedOutcome {
	t.Helper()
	objs := []runtime.Object{}
	for _, p := range policies {
		objs = append(objs, p)
	}
	for _, b := range bindings {
		objs = append(objs, b)
	}
	client, factory, mapper := oracleClients(namespaces, params, objs...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The chain kube-apiserver builds from its plugins: the mutating policy
	// plugin behind the reinvocation handler.
	plugins := admission.NewPlugins()
	mutating.Register(plugins)
	init := initializer.New(withOpenAPI{client}, dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), factory, allowAll,
		utilfeature.DefaultFeatureGate, compatibility.DefaultBuildEffectiveVersion(), ctx.Done(), mapper)
	chain, err := plugins.NewFromPlugins([]string{mutating.PluginName}, noConfig{}, init, nil)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	u := &unstructured.Unstructured{Object: object}
	gvk := u.GroupVersionKind()
	resource, namespaced, _ := testResource(gvk)
	ns := u.GetNamespace()
	if !namespaced {
		ns = ""
	}
	var attrs admission.Attributes
	var aerr error
	// The plugin refuses requests until its policy source has read the
	// informers, and its schemas until it has read discovery: ask again
	// until it is ready.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		typed, err := kubescheme.Scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(object)
		if err := json.Unmarshal(data, typed); err != nil {
			t.Fatal(err)
		}
		defaultObject(typed) // the API server defaults before admission; the fake clients do not
		attrs = admission.NewAttributesRecord(typed, nil, gvk, ns, u.GetName(), gvk.GroupVersion().WithResource(resource), "", admission.Create, nil, false,
			ArgoCDController)
		aerr = chain.(admission.MutationInterface).Admit(ctx, attrs, admission.NewObjectInterfacesFromScheme(kubescheme.Scheme))
		if aerr == nil || !strings.Contains(aerr.Error(), "not yet ready") && !strings.Contains(aerr.Error(), "not found. There can be a delay") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admission plugin did not get ready: %v", aerr)
		}
	}
	var se *apierrors.StatusError
	if errors.As(aerr, &se) {
		return mutatedOutcome{Deny: se.ErrStatus.Message}
	}
	if aerr != nil {
		t.Fatalf("the admission plugin failed: %v", aerr)
	}
	attrs.GetObject().GetObjectKind().SetGroupVersionKind(gvk)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(attrs.GetObject())
	if err != nil {
		t.Fatal(err)
	}
	// The scheme the plugin defaults with has no defaulters (they are
	// k8s.io/kubernetes'): apply the ones the package applies.
	return mutatedOutcome{Object: normalizeContent(content)}
}
