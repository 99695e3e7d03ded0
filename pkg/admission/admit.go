package admission

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	k8serrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kubescheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/repotool/repotool/internal/jsonptr"
)

// Mutation is what one mutating policy did to an object through one
// binding (and param).
type Mutation struct {
	Policy, Binding       string
	PolicyRef, BindingRef any
	// ParamRef is the param the mutation ran with, nil when none.
	ParamRef any
	// Fields are the JSON pointers where the object differs after the
	// policy's mutations (jsonptr.EachChange), in field order.
	Fields []string
	// Reinvoked is true for the API server's second pass over the policies
	// whose reinvocationPolicy is IfNeeded.
	Reinvoked bool
}

// Admitted is an object as the API server would store it after a CREATE:
// mutated by the cluster's mutating policies, in their order, then put to
// its validating ones.
type Admitted struct {
	// Object is the admitted content (as NormalizeJSON gives it); nil when
	// a mutating policy's failure denies the request.
	Object map[string]any
	// Mutations are the mutating policies that changed the object, in the
	// order they ran.
	Mutations []Mutation
	// Decisions are the mutating policies' denials (Mutating set) when the
	// request is denied before validation, else the validating policies'
	// decisions on Object (see Evaluate).
	Decisions []Decision
}

// invocation is one mutating policy to run on an object: a binding that
// selects it, with one of its params.
type invocation struct {
	p        *mutatingPolicy
	b        *mutatingBinding
	param    selected
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// key identifies an invocation across the two passes.
func (i invocation) key() string {
	k := i.p.obj.Name + "\x00" + i.b.obj.Name
	if u, ok := i.param.obj.(*unstructured.Unstructured); ok && u != nil {
		k += "\x00" + u.GetNamespace() + "/" + u.GetName()
	}
	return k
}

// Admit returns the object as the API server would store it: the
// cluster's mutating policies applied as its MutatingAdmissionPolicy
// plugin applies them (policies in name order, each binding and param;
// match conditions; mutations in order; failurePolicy; a second pass for
// reinvocationPolicy IfNeeded), then the validating policies' decisions
// on the result. Built-in kinds get the defaults NormalizeJSON applies
// after each mutation, as the API server defaults them.
func (s *Set) Admit(ctx context.Context, in Input) Admitted {
	content := in.Content
	if !in.Normalized {
		content = normalizeContent(content)
	}
	u := &unstructured.Unstructured{Object: content}
	attrs, _ := s.attributes(u)
	if !s.Mutates() || policyResources[attrs.GetResource().GroupResource()] {
		return Admitted{Object: content, Decisions: s.Evaluate(ctx, Input{Content: content, Ref: in.Ref, Normalized: true})}
	}
	m := &mutationRun{s: s}
	reinvoke := m.pass(ctx, attrs, false)
	if len(m.denials) == 0 && reinvoke {
		m.pass(ctx, m.attrs, true)
	}
	if len(m.denials) > 0 {
		return Admitted{Mutations: m.mutations, Decisions: m.denials}
	}
	out := m.object(m.attrs)
	return Admitted{Object: out, Mutations: m.mutations, Decisions: s.Evaluate(ctx, Input{Content: out, Ref: in.Ref, Normalized: true})}
}

// mutationRun is one object's way through the mutating policies: the
// state the API server keeps across its two passes.
type mutationRun struct {
	s *Set
	// attrs is the request as last mutated.
	attrs     admission.Attributes
	mutations []Mutation
	denials   []Decision
	// invoked are the IfNeeded invocations run since the object last
	// changed; reinvoke those to run again in the second pass.
	invoked, reinvoke map[string]bool
}

func (m *mutationRun) object(a admission.Attributes) map[string]any {
	return a.GetObject().(*unstructured.Unstructured).Object
}

// pass runs the invocations that select the object once, as one call of
// the plugin does, and reports whether the API server would call it again.
func (m *mutationRun) pass(ctx context.Context, attrs admission.Attributes, reinvoking bool) bool {
	m.attrs = attrs
	invs, errs := m.s.invocations(attrs)
	configErrs := errs
	ns := m.s.namespaceOf(attrs)
	dirty := false
	for _, inv := range invs {
		if ctx.Err() != nil {
			return false
		}
		va, err := admission.NewVersionedAttributes(m.attrs, inv.kind, m.s.ifaces)
		if err != nil {
			configErrs = appendMutatingError(configErrs, inv, fmt.Errorf("failed to convert object version: %w", err))
			continue
		}
		cctx := inv.p.c.compiler.CreateContext(ctx)
		if inv.p.c.conditions != nil {
			r := inv.p.c.conditions.Match(cctx, va, inv.param.obj, nil)
			if r.Error != nil {
				configErrs = appendMutatingError(configErrs, inv, r.Error)
				continue
			}
			if !r.Matches {
				continue
			}
		}
		if reinvoking && !m.reinvoke[inv.key()] {
			continue
		}
		before := m.object(m.attrs)
		for i, p := range inv.p.c.patchers {
			strict := inv.p.obj.Spec.Mutations[i].PatchType == admissionv1.PatchTypeJSONPatch
			err := m.s.applyMutation(cctx, p, va, ns, inv, strict)
			if b := budgetOf(ctx); b != nil && b.Exceeded() {
				m.denials = []Decision{{Policy: inv.p.obj.Name, PolicyRef: inv.p.in.Ref, Validation: -1, Mutating: true, BudgetExceeded: true,
					StaticMessage: ErrBudget.Error()}}
				return false
			}
			var se *k8serrors.StatusError
			if errors.As(err, &se) {
				d := mutatingDenial(inv, err)
				d.Message = se.Error() // the API server's own status, not the policy's
				m.denials = []Decision{d}
				return false
			}
			if err != nil {
				configErrs = appendMutatingError(configErrs, inv, err)
				continue
			}
			dirty = true
			m.attrs = withObject(m.attrs, va.GetObject().(*unstructured.Unstructured))
		}
		if fields := jsonptr.Changed("", before, m.object(m.attrs)); len(fields) > 0 {
			m.mutations = append(m.mutations, Mutation{Policy: inv.p.obj.Name, Binding: inv.b.obj.Name, PolicyRef: inv.p.in.Ref, BindingRef: inv.b.in.Ref,
				ParamRef: inv.param.ref, Fields: fields, Reinvoked: reinvoking})
			m.requireReinvoke()
		}
		if inv.p.obj.Spec.ReinvocationPolicy == admissionv1.IfNeededReinvocationPolicy {
			if m.invoked == nil {
				m.invoked = map[string]bool{}
			}
			m.invoked[inv.key()] = true
		}
	}
	m.denials = append(m.denials, configErrs...)
	if dirty {
		m.requireReinvoke()
		return len(m.reinvoke) > 0
	}
	return false
}

// requireReinvoke marks the IfNeeded invocations run so far to run again.
func (m *mutationRun) requireReinvoke() {
	if m.reinvoke == nil {
		m.reinvoke = map[string]bool{}
	}
	for k := range m.invoked {
		m.reinvoke[k] = true
	}
	m.invoked = nil
}

// withObject is a with its object replaced.
func withObject(a admission.Attributes, u *unstructured.Unstructured) admission.Attributes {
	return admission.NewAttributesRecord(u, nil, a.GetKind(), a.GetNamespace(), a.GetName(), a.GetResource(), "", admission.Create, nil, false, a.GetUserInfo())
}

// invocations are the mutating policies, bindings and params that select
// the request, in order, and the configuration errors on the way (under
// failurePolicy Fail).
func (s *Set) invocations(attrs admission.Attributes) ([]invocation, []Decision) {
	var out []invocation
	var errs []Decision
	for _, p := range s.mutating {
		if !p.applied() {
			continue
		}
		matches, resource, kind, err := policyMatches(s.matcher, attrs, s.ifaces, p.obj.Spec.MatchConstraints)
		if err == nil && matches && p.params.err != nil {
			err = p.params.err
		}
		if err != nil {
			errs = appendMutatingError(errs, invocation{p: p}, fmt.Errorf("failed to configure policy: %w", err))
			continue
		}
		if !matches {
			continue
		}
		for i := range p.bindings {
			b := &p.bindings[i]
			inv := invocation{p: p, b: b, resource: resource, kind: kind}
			ok, err := bindingMatches(s.matcher, attrs, s.ifaces, b.obj.Spec.MatchResources)
			if err != nil {
				errs = appendMutatingError(errs, inv, fmt.Errorf("failed to configure binding: %w", err))
				continue
			}
			if !ok {
				continue
			}
			params, err := s.params(p.params, b.obj.Spec.ParamRef, attrs.GetNamespace())
			if err != nil {
				errs = appendMutatingError(errs, inv, fmt.Errorf("failed to configure binding: %w", err))
				continue
			}
			for _, prm := range params {
				inv.param = prm
				out = append(out, inv)
			}
		}
	}
	return out, errs
}

// applyMutation runs one mutation of an invocation and, as the API server
// does, defaults its result; strict when the result is to be decoded as
// the JSON patcher decodes it (an apply configuration's result was checked
// against the kind's schema when it was merged).
func (s *Set) applyMutation(ctx context.Context, p patch.Patcher, va *admission.VersionedAttributes, ns *corev1.Namespace, inv invocation,
	strict bool) error {
	if p == nil {
		return k8serrors.NewInternalError(fmt.Errorf("policy evaluator is nil"))
	}
	req := patch.Request{
		MatchedResource: inv.resource, VersionedAttributes: va, ObjectInterfaces: s.ifaces, Namespace: ns,
		OptionalVariables: cel.OptionalVariableBindings{VersionedParams: inv.param.obj},
	}
	if !strict { // an apply configuration: merged by the kind's schema
		req.TypeConverter = typeConverterFor(va.VersionedKind)
	}
	out, err := p.Patch(ctx, req, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return err
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return k8serrors.NewInternalError(fmt.Errorf("a mutation returned %T", out))
	}
	if before, ok := va.GetObject().(*unstructured.Unstructured); ok && reflect.DeepEqual(before.Object, u.Object) {
		va.UpdateObject(before) // unchanged: already decoded and defaulted
		return nil
	}
	content, err := admittedContent(u, strict)
	if err != nil {
		return k8serrors.NewInternalError(err)
	}
	va.UpdateObject(&unstructured.Unstructured{Object: content})
	return nil
}

// strictJSON decodes as the API server's JSON patcher decodes a patched
// object: strictly, into the kind's Go type.
var strictJSON = sync.OnceValue(func() *serializerjson.Serializer {
	return serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, kubescheme.Scheme, kubescheme.Scheme,
		serializerjson.SerializerOptions{Strict: true})
})

// admittedContent is a mutated object as the API server holds it: a
// built-in kind decoded into its Go type (strictly, as the JSON patcher
// decodes: a mutation that gives a field a value of the wrong type, or a
// field the kind does not have, fails there) and defaulted; any kind as
// NormalizeJSON gives it.
func admittedContent(u *unstructured.Unstructured, strict bool) (map[string]any, error) {
	gvk := u.GroupVersionKind()
	if !kubescheme.Scheme.Recognizes(gvk) {
		return normalizeContent(u.Object), nil
	}
	into, err := kubescheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if !strict {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
	} else {
		var data []byte
		if data, err = u.MarshalJSON(); err == nil {
			_, _, err = strictJSON().Decode(data, nil, into)
		}
	}
	if err != nil {
		return nil, err
	}
	defaultObject(into)
	return runtime.DefaultUnstructuredConverter.ToUnstructured(into)
}

// appendMutatingError adds the denial of a mutating policy's error under
// failurePolicy Fail; under Ignore, nothing.
func appendMutatingError(out []Decision, inv invocation, err error) []Decision {
	if *inv.p.obj.Spec.FailurePolicy == admissionv1.Ignore {
		return out
	}
	return append(out, mutatingDenial(inv, err))
}

// mutatingDenial is the API server's denial for a mutating policy's
// error, in its words.
func mutatingDenial(inv invocation, err error) Decision {
	d := Decision{
		Policy: inv.p.obj.Name, PolicyRef: inv.p.in.Ref, Actions: []admissionv1.ValidationAction{admissionv1.Deny}, Validation: -1,
		Reason: metav1.StatusReasonInvalid, EvalError: true, Mutating: true,
		Message:       fmt.Sprintf("policy %q denied request: %s", inv.p.obj.Name, err),
		StaticMessage: "a mutation of the policy failed to apply (failurePolicy Fail)",
	}
	if inv.b != nil {
		d.Binding, d.BindingRef, d.ParamRef = inv.b.obj.Name, inv.b.in.Ref, inv.param.ref
		d.Message = fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", inv.p.obj.Name, inv.b.obj.Name, err)
	}
	return d
}
