package admission

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/apiserver/pkg/warning"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-base/featuregate"
)

// The oracle: the API server's ValidatingAdmissionPolicy admission plugin
// (validating.NewPlugin, the plugin kube-apiserver registers), initialized
// as the API server initializes it, over fake clients and informers that
// hold the case's policies, bindings, namespaces and params.

// outcome is what the API server tells about one CREATE: the denial (its
// message and reason), the warnings, and the validation failures the audit
// annotation records.
type outcome struct {
	Deny     string
	Reason   metav1.StatusReason
	Warnings []string
	Audit    []auditFailure
}

type auditFailure struct {
	Message           string                         `json:"message"`
	Policy            string                         `json:"policy"`
	Binding           string                         `json:"binding"`
	ExpressionIndex   int                            `json:"expressionIndex"`
	ValidationActions []admissionv1.ValidationAction `json:"validationActions"`
}

const auditKey = "validation.policy.admission.k8s.io/validation_failure"

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// allowAll is the oracle's authorizer; the cases ask it nothing.
var allowAll = authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
})

// oracle runs the admission plugin on object.
func oracle(t *testing.T, policies []*admissionv1.ValidatingAdmissionPolicy, bindings []*admissionv1.ValidatingAdmissionPolicyBinding, namespaces map[string]map[string]string, params []*corev1.ConfigMap, object map[string]any) outcome {
	t.Helper()
	objs := []runtime.Object{}
	for _, p := range policies {
		objs = append(objs, p)
	}
	for _, b := range bindings {
		objs = append(objs, b)
	}
	client, factory, mapper := oracleClients(namespaces, params, objs...)
	plugin, err := validating.NewPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	initializer.New(client, dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), factory, allowAll, featuregate.NewFeatureGate(), compatibility.DefaultBuildEffectiveVersion(), ctx.Done(), mapper).Initialize(plugin)
	plugin.SetRESTMapper(mapper)
	if err := plugin.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	u := &unstructured.Unstructured{Object: object}
	gvk := u.GroupVersionKind()
	var obj runtime.Object = u
	if typed, err := kubescheme.Scheme.New(gvk); err == nil {
		data, _ := json.Marshal(object)
		if err := json.Unmarshal(data, typed); err != nil {
			t.Fatal(err)
		}
		defaultObject(typed) // the API server defaults before admission; the fake clients do not
		obj = typed
	}
	resource, namespaced, _ := testResource(gvk)
	ns := u.GetNamespace()
	if !namespaced {
		ns = ""
	}
	var attrs *recording
	w := &warnings{}
	var verr error
	// The plugin refuses requests until its policy source has read the
	// informers: ask again until it is ready.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		w.list = nil
		attrs = &recording{Attributes: admission.NewAttributesRecord(obj, nil, gvk, ns, u.GetName(), gvk.GroupVersion().WithResource(resource), "", admission.Create, nil, false, ArgoCDController), annotations: map[string]string{}}
		verr = plugin.Validate(warning.WithWarningRecorder(ctx, w), attrs, admission.NewObjectInterfacesFromScheme(kubescheme.Scheme))
		if verr == nil || !strings.Contains(verr.Error(), "not yet ready") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admission plugin did not get ready: %v", verr)
		}
	}
	out := outcome{Warnings: slices.Clone(w.list)}
	var se *apierrors.StatusError
	if errors.As(verr, &se) {
		out.Deny = se.ErrStatus.Details.Causes[len(se.ErrStatus.Details.Causes)-1].Message
		out.Reason = se.ErrStatus.Reason
	} else if verr != nil {
		t.Fatalf("the admission plugin failed: %v", verr)
	}
	if v := attrs.annotations[auditKey]; v != "" {
		if err := json.Unmarshal([]byte(v), &out.Audit); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// oracleClients are the fake clients, informers and REST mapper of a
// cluster holding namespaces, params and objs.
func oracleClients(namespaces map[string]map[string]string, params []*corev1.ConfigMap, objs ...runtime.Object) (*fake.Clientset,
	informers.SharedInformerFactory, meta.RESTMapper) {
	for name, l := range namespaces {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}})
	}
	for _, p := range params {
		objs = append(objs, p)
	}
	client := fake.NewSimpleClientset(objs...)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	return client, informers.NewSharedInformerFactory(client, 0), mapper
}

// recording keeps the annotations the plugin adds to a request.
type recording struct {
	admission.Attributes
	annotations map[string]string
}

func (r *recording) AddAnnotation(key, value string) error {
	r.annotations[key] = value
	return nil
}

func (r *recording) AddAnnotationWithLevel(key, value string, _ auditinternal.Level) error {
	return r.AddAnnotation(key, value)
}

// testResource maps the kinds of the parity cases to their resources, as
// discovery would.
func testResource(gvk schema.GroupVersionKind) (string, bool, bool) {
	switch gvk.Kind {
	case "Deployment":
		return "deployments", true, true
	case "ConfigMap":
		return "configmaps", true, true
	case "Pod":
		return "pods", true, true
	case "Namespace":
		return "namespaces", false, true
	case "ClusterRole":
		return "clusterroles", false, true
	case "Widget":
		return "widgets", true, true
	case KindPolicy:
		return "validatingadmissionpolicies", false, true
	}
	return "", false, false
}
