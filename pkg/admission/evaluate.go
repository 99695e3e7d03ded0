package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/admission"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
)

// Decision is one reason the API server would not admit an object
// silently: a validation that fails, an expression that cannot be
// evaluated under failurePolicy Fail, a binding whose param is missing
// under parameterNotFoundAction Deny, or a policy the API server cannot
// configure.
type Decision struct {
	Policy, Binding       string
	PolicyRef, BindingRef any
	// ParamRef is the param object the validation ran with, nil when none.
	ParamRef any
	// Actions are what the binding does with a failed validation (Deny,
	// Warn, Audit); a configuration or audit annotation error denies
	// whatever the binding says.
	Actions []admissionv1.ValidationAction
	// Message is the message the API server gives, which may come from the
	// policy's messageExpression and so quote the object.
	Message string
	// StaticMessage is the same message when it does not depend on the
	// object: the validation's message, or "failed expression: <expr>";
	// for an evaluation error, a configuration error or a missing param,
	// the API server's message about the policy. It is what may be shown
	// for an object that carries secret values.
	StaticMessage string
	// Reason is the status reason of a denial (Invalid unless the
	// validation gives one).
	Reason metav1.StatusReason
	// Validation is the index of the failed validation in the policy's
	// spec.validations, -1 when the decision is not about one.
	Validation int
	// EvalError is true when the expression could not be evaluated (a
	// runtime error, the cost limit) and the failurePolicy is Fail.
	EvalError bool
	// Mutating is true for a mutating policy's denial: a mutation that
	// failed, or a policy or binding the API server cannot configure,
	// under failurePolicy Fail (see Admit).
	Mutating bool
	// BudgetExceeded is true on the last decision of an evaluation the
	// run's budget (WithBudget) stopped, while Policy ran: the object was
	// not put to the remaining policies, whatever their failurePolicy.
	BudgetExceeded bool

	eval *evaluation
}

// evaluation is how a decision was reached, to evaluate its validation
// again on a changed object (see Fields).
type evaluation struct {
	p         *boundPolicy
	param     runtime.Object
	attrs     admission.Attributes
	resource  schema.GroupVersionResource
	kind      schema.GroupVersionKind
	namespace *corev1.Namespace
}

// Evaluate puts one object to every policy and binding of the Set as the
// API server does for a CREATE, and returns the decisions that deny, warn
// or audit, in policy, binding and validation order. An object whose
// namespace the Cluster does not hold is evaluated as if that namespace had
// no labels. Evaluate ends early, returning what it has, when ctx ends.
func (s *Set) Evaluate(ctx context.Context, in Input) []Decision {
	u := &unstructured.Unstructured{Object: in.Content}
	attrs, _ := s.attributes(u)
	if policyResources[attrs.GetResource().GroupResource()] {
		return nil // the API server puts no API-defined policy to policies and bindings
	}
	var out []Decision
	var normalized admission.Attributes
	budget := budgetOf(ctx)
	exceeded := func() bool { return budget != nil && budget.Exceeded() }
	stopped := func(p *boundPolicy) []Decision {
		return append(out, Decision{Policy: p.obj.Name, PolicyRef: p.in.Ref, Validation: -1, BudgetExceeded: true, StaticMessage: ErrBudget.Error()})
	}
	for _, p := range s.policies {
		if ctx.Err() != nil {
			return out
		}
		if exceeded() {
			return stopped(p)
		}
		if len(p.bindings) == 0 || p.c.usesAuthorizer {
			continue
		}
		matches, resource, kind, err := policyMatches(s.matcher, attrs, s.ifaces, p.obj.Spec.MatchConstraints)
		if err != nil {
			out = appendConfigError(out, p, nil, err)
			continue
		}
		if !matches {
			continue
		}
		if p.params.err != nil {
			out = appendConfigError(out, p, nil, p.params.err)
			continue
		}
		for _, b := range p.bindings {
			ok, err := bindingMatches(s.matcher, attrs, s.ifaces, b.obj.Spec.MatchResources)
			if err != nil {
				out = appendConfigError(out, p, &b, err)
				continue
			}
			if !ok {
				continue
			}
			params, err := s.params(p.params, b.obj.Spec.ParamRef, attrs.GetNamespace())
			if err != nil {
				out = appendConfigError(out, p, &b, err)
				continue
			}
			if normalized == nil {
				normalized = attrs
				if !in.Normalized {
					normalized = s.normalize(attrs)
				}
			}
			ev := &evaluation{p: p, attrs: normalized, resource: resource, kind: kind, namespace: s.namespaceOf(normalized)}
			for _, prm := range params {
				ev := *ev
				ev.param = prm.obj
				ds := s.validate(ctx, &ev, b, prm.ref)
				if exceeded() {
					return stopped(p) // its decisions are the budget's, not the policy's
				}
				out = append(out, ds...)
			}
		}
	}
	return out
}

// policyResources are the resources of admission policies and their
// bindings, which the API server never puts to a policy defined through its
// API (that could lock a policy out of being changed).
var policyResources = map[schema.GroupResource]bool{
	{Group: Group, Resource: "validatingadmissionpolicies"}:       true,
	{Group: Group, Resource: "validatingadmissionpolicybindings"}: true,
	{Group: Group, Resource: "mutatingadmissionpolicies"}:         true,
	{Group: Group, Resource: "mutatingadmissionpolicybindings"}:   true,
}

// validate runs a policy's validations for one binding and param.
func (s *Set) validate(ctx context.Context, ev *evaluation, b boundBinding, paramRef any) []Decision {
	va, err := admission.NewVersionedAttributes(ev.attrs, ev.kind, s.ifaces)
	if err != nil {
		return appendConfigError(nil, ev.p, &b, fmt.Errorf("failed to convert object version: %w", err))
	}
	var prm runtime.Object
	if ev.param != nil {
		prm = ev.param
	}
	res := ev.p.c.validator.validate(ctx, ev.resource, va, prm, ev.namespace)
	var out []Decision
	for i, v := range res.verdicts {
		if v.kind != denied && v.kind != failed {
			continue
		}
		dec := Decision{
			Policy: ev.p.obj.Name, Binding: b.obj.Name, PolicyRef: ev.p.in.Ref, BindingRef: b.in.Ref, ParamRef: paramRef,
			Actions: b.obj.Spec.ValidationActions, Message: v.message, Reason: v.reason,
			Validation: -1, EvalError: v.kind == failed, eval: ev,
		}
		if len(res.verdicts) == len(ev.p.obj.Spec.Validations) {
			dec.Validation = i
		}
		dec.StaticMessage = staticMessage(ev.p.obj, dec)
		out = append(out, dec)
	}
	for _, msg := range res.auditErrors {
		out = append(out, Decision{
			Policy: ev.p.obj.Name, Binding: b.obj.Name, PolicyRef: ev.p.in.Ref, BindingRef: b.in.Ref, ParamRef: paramRef,
			Actions: []admissionv1.ValidationAction{admissionv1.Deny}, Message: msg, StaticMessage: "an audit annotation's valueExpression failed to evaluate",
			Validation: -1, EvalError: true,
		})
	}
	return out
}

// staticMessage is the message of a decision that does not depend on the
// object's content.
func staticMessage(p *admissionv1.ValidatingAdmissionPolicy, d Decision) string {
	switch {
	case d.Validation < 0 || d.EvalError:
		return "an expression of the policy failed to evaluate (failurePolicy Fail)"
	case p.Spec.Validations[d.Validation].Message != "":
		return strings.TrimSpace(p.Spec.Validations[d.Validation].Message)
	}
	return "failed expression: " + strings.TrimSpace(p.Spec.Validations[d.Validation].Expression)
}

// appendConfigError adds the decision the API server makes when it cannot
// configure a policy or binding for an object: a denial under
// failurePolicy Fail, nothing under Ignore.
func appendConfigError(out []Decision, p *boundPolicy, b *boundBinding, err error) []Decision {
	if *p.obj.Spec.FailurePolicy == admissionv1.Ignore {
		return out
	}
	d := Decision{
		Policy:     p.obj.Name,
		PolicyRef:  p.in.Ref,
		Actions:    []admissionv1.ValidationAction{admissionv1.Deny},
		Validation: -1,
		Reason:     metav1.StatusReasonInvalid,
	}
	d.Message = fmt.Errorf("failed to configure policy: %w", err).Error()
	if b != nil {
		d.Binding, d.BindingRef = b.obj.Name, b.in.Ref
		d.Message = fmt.Errorf("failed to configure binding: %w", err).Error()
	}
	d.StaticMessage = d.Message
	return append(out, d)
}

// selected is a param a binding selects.
type selected struct {
	obj runtime.Object
	ref any
}

// params returns the params a binding's paramRef selects for an object in
// namespace, as the API server's CollectParams does: one nil param when
// the policy or the binding has none.
func (s *Set) params(p paramSource, ref *admissionv1.ParamRef, namespace string) ([]selected, error) {
	if p.kind == nil || ref == nil {
		return []selected{{}}, nil
	}
	ns := ""
	if p.namespaced {
		ns = namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		} else if ns == "" {
			return nil, fmt.Errorf("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, fmt.Errorf("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var out []selected
	sel := labels.Everything()
	if ref.Selector != nil {
		sel, _ = metav1.LabelSelectorAsSelector(ref.Selector) // checked by decodeBinding
	}
	for _, c := range s.cluster.params[p.gvk] {
		if c.obj.GetNamespace() != ns && p.namespaced {
			continue
		}
		if ref.Name != "" && c.obj.GetName() != ref.Name || ref.Name == "" && !sel.Matches(labels.Set(c.obj.GetLabels())) {
			continue
		}
		out = append(out, selected{normalizeObject(c.obj), c.ref})
	}
	if len(out) == 0 && *ref.ParameterNotFoundAction == admissionv1.DenyAction {
		return nil, errNoParams
	}
	return out, nil
}

// errNoParams is the API server's error for a binding whose paramRef
// selects nothing under parameterNotFoundAction Deny.
var errNoParams = fmt.Errorf("no params found for policy binding with `Deny` parameterNotFoundAction")

// IsMissingParam reports whether d is a denial because the binding's
// paramRef selects no object under parameterNotFoundAction Deny.
func (d Decision) IsMissingParam() bool {
	return d.Validation < 0 && d.Message == fmt.Errorf("failed to configure binding: %w", errNoParams).Error()
}

// namespaceOf is the Namespace object CEL's namespaceObject shows: the
// object's namespace, none for a cluster-scoped object or a Namespace.
func (s *Set) namespaceOf(a admission.Attributes) *corev1.Namespace {
	name := a.GetNamespace()
	if k := a.GetKind(); name == "" || k.Group == "" && k.Version == "v1" && k.Kind == "Namespace" {
		return nil
	}
	ns, err := s.cluster.namespaces.Get(name)
	if err != nil {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	return ns
}

// normalize returns attributes whose object is what CEL sees of it in the
// API server (see normalizeContent).
func (s *Set) normalize(a admission.Attributes) admission.Attributes {
	u := normalizeObject(a.GetObject().(*unstructured.Unstructured))
	return admission.NewAttributesRecord(u, nil, a.GetKind(), a.GetNamespace(), a.GetName(), a.GetResource(), "", admission.Create, nil, false, a.GetUserInfo())
}

func normalizeObject(u *unstructured.Unstructured) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: normalizeContent(u.Object)}
}

// NormalizeJSON decodes an object's JSON as the API server does before
// admission (see normalizeContent): content for an Input with Normalized
// set, made once per object however many clusters deploy it.
func NormalizeJSON(data []byte) (map[string]any, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.Unmarshal(data, &head) // not an object of a known kind: decoded as unstructured below
	if typed, err := kubescheme.Scheme.New(schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)); err == nil {
		if json.Unmarshal(data, typed) == nil {
			defaultObject(typed)
			if out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err == nil {
				return out, nil
			}
		}
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// normalizeContent returns content as CEL sees it in the API server
// (NormalizeJSON); content itself when it cannot be written as JSON.
func normalizeContent(content map[string]any) map[string]any {
	data, err := json.Marshal(content)
	if err != nil {
		return content
	}
	out, err := NormalizeJSON(data)
	if err != nil {
		return content
	}
	return out
}
