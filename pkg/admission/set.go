package admission

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Options configure a Set.
type Options struct {
	// KubeVersion is the cluster's Kubernetes version ("v1.33.5"): the
	// policies' expressions must compile as its API server compiles new
	// ones. Empty: the library's own version.
	KubeVersion string
	// Resource names the resource of a kind and whether it is namespaced,
	// as the cluster's discovery would; known is false for a kind the
	// cluster does not serve. Required.
	Resource func(gvk schema.GroupVersionKind) (resource string, namespaced, known bool)
	// Compiler compiles the policies; share one between the Sets of a run
	// so that each policy is compiled once. Nil: a new one.
	Compiler *Compiler
	// User is who asks the API server; nil: Argo CD's application
	// controller (ArgoCDController).
	User user.Info
	// FeatureGates are the cluster's API server feature gates that differ
	// from their defaults: MutatingAdmissionPolicy turns mutating policies
	// on in Kubernetes 1.32 to 1.35 (off there by default; on from 1.36).
	FeatureGates map[string]bool
}

// ArgoCDController is the requester of every object Argo CD syncs: its
// application controller's service account in the argocd namespace.
var ArgoCDController user.Info = &user.DefaultInfo{
	Name:   "system:serviceaccount:argocd:argocd-application-controller",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:argocd", "system:authenticated"},
}

// Set is a cluster's policies and bindings, compiled, ready to admit its
// objects.
type Set struct {
	policies []*boundPolicy
	mutating []*mutatingPolicy
	cluster  *Cluster
	matcher  *matching.Matcher
	ifaces   admission.ObjectInterfaces
	opts     Options
}

// boundPolicy is a policy and its bindings.
type boundPolicy struct {
	in       Input
	obj      *admissionv1.ValidatingAdmissionPolicy
	c        *compiled
	bindings []boundBinding
	params   paramSource
}

type boundBinding struct {
	in  Input
	obj *admissionv1.ValidatingAdmissionPolicyBinding
}

// New decodes and compiles a cluster's policies and bindings, validating
// and mutating ones alike (told by their kinds). Problems are what the API
// server would refuse (an unreadable object, an expression that does not
// compile, a binding of a policy the cluster does not have) and what
// cannot be evaluated offline; a policy or binding with a problem that
// makes it unusable is left out of the Set, and said so.
func New(policies, bindings []Input, cluster *Cluster, opts Options) (*Set, []Problem) {
	if opts.Compiler == nil {
		opts.Compiler = NewCompiler()
	}
	if opts.User == nil {
		opts.User = ArgoCDController
	}
	cluster.index()
	s := &Set{
		cluster: cluster,
		matcher: matching.NewMatcher(cluster.namespaces, noNamespaces{}),
		ifaces:  admission.NewObjectInterfacesFromScheme(runtime.NewScheme()),
		opts:    opts,
	}
	var problems []Problem
	byName := map[string]*boundPolicy{}
	mutatingByName := map[string]*mutatingPolicy{}
	for _, in := range policies {
		if isMutating(in) {
			problems = append(problems, s.addMutating(in, mutatingByName)...)
		} else {
			problems = append(problems, aboutValidating(s.addValidating(in, byName))...)
		}
	}
	for _, in := range bindings {
		if isMutating(in) {
			problems = append(problems, s.bindMutating(in, mutatingByName)...)
		} else {
			problems = append(problems, aboutValidating(bindValidating(in, byName))...)
		}
	}
	slices.SortFunc(s.policies, func(a, b *boundPolicy) int { return strings.Compare(a.obj.Name, b.obj.Name) })
	for _, bp := range s.policies {
		slices.SortFunc(bp.bindings, func(a, b boundBinding) int { return strings.Compare(a.obj.Name, b.obj.Name) })
		if bp.c.usesAuthorizer && len(bp.bindings) > 0 {
			problems = append(problems, Problem{Ref: bp.in.Ref, Message: fmt.Sprintf("ValidatingAdmissionPolicy %s asks the authorizer, which only the cluster "+
				"can answer: repotool does not evaluate it", bp.obj.Name), Fix: "none needed; the cluster still enforces it", Limit: true, Validating: true})
		}
	}
	return s, append(problems, s.sortMutating()...)
}

// aboutValidating marks problems as about a validating policy or binding.
func aboutValidating(problems []Problem) []Problem {
	for i := range problems {
		problems[i].Validating = true
	}
	return problems
}

// isMutating reports whether in is a mutating policy or binding.
func isMutating(in Input) bool {
	api, _ := in.Content["apiVersion"].(string)
	kind, _ := in.Content["kind"].(string)
	return IsMutatingPolicy(api, kind) || IsMutatingBinding(api, kind)
}

// addValidating decodes and compiles a ValidatingAdmissionPolicy.
func (s *Set) addValidating(in Input, byName map[string]*boundPolicy) []Problem {
	p, prob := decodePolicy(in)
	if prob != nil {
		return []Problem{*prob}
	}
	if _, dup := byName[p.Name]; dup {
		return []Problem{{Ref: in.Ref, Message: fmt.Sprintf("ValidatingAdmissionPolicy %s is deployed twice to the cluster; the last one "+
			"applied wins", p.Name), Fix: "keep one"}}
	}
	bp := &boundPolicy{in: in, obj: p, c: s.opts.Compiler.compile(p, s.opts.KubeVersion)}
	var problems []Problem
	for _, cp := range bp.c.problems {
		cp.Ref = in.Ref
		problems = append(problems, cp)
	}
	bp.params = newParamSource(p.Spec.ParamKind, s.opts.Resource)
	byName[p.Name] = bp
	s.policies = append(s.policies, bp)
	return problems
}

// bindValidating adds a ValidatingAdmissionPolicyBinding to its policy.
func bindValidating(in Input, byName map[string]*boundPolicy) []Problem {
	b, prob := decodeBinding(in)
	if prob != nil {
		return []Problem{*prob}
	}
	bp := byName[b.Spec.PolicyName]
	if bp == nil {
		return []Problem{{Ref: in.Ref, Field: "/spec/policyName", Message: fmt.Sprintf("ValidatingAdmissionPolicyBinding %s binds "+
			"ValidatingAdmissionPolicy %s, which the cluster does not have", b.Name, b.Spec.PolicyName), Fix: "deploy the policy to this cluster, name " +
			"it in clusters.<cluster>.admissionPolicies of repotool.yaml, or correct spec.policyName", Missing: true}}
	}
	bp.bindings = append(bp.bindings, boundBinding{in, b})
	return nil
}

// Bound reports whether the Set has any binding, validating or mutating: a
// cluster without one admits everything as it is.
func (s *Set) Bound() bool {
	return slices.ContainsFunc(s.policies, func(p *boundPolicy) bool { return len(p.bindings) > 0 }) || s.Mutates()
}

// attributes are a CREATE of o by the Set's user, as the API server hands
// it to admission.
func (s *Set) attributes(o *unstructured.Unstructured) (admission.Attributes, bool) {
	gvk := o.GroupVersionKind()
	resource, namespaced, _ := s.opts.Resource(gvk)
	ns := o.GetNamespace()
	if !namespaced {
		ns = ""
	}
	return admission.NewAttributesRecord(
		o,
		nil,
		gvk,
		ns,
		o.GetName(),
		gvk.GroupVersion().WithResource(resource),
		"",
		admission.Create,
		nil,
		false,
		s.opts.User,
	), namespaced
}

// MayMatch reports whether an object of kind gvk may match a bound
// policy, validating or mutating: whether a CREATE rule of some policy's
// matchConstraints names
// its group and resource (or "*"). It looks at nothing else, so an object
// it rules out needs no evaluation, nor even its content read.
func (s *Set) MayMatch(gvk schema.GroupVersionKind) bool {
	resource, _, _ := s.opts.Resource(gvk)
	for _, p := range s.policies {
		if len(p.bindings) > 0 && !p.c.usesAuthorizer && rulesMayMatch(p.obj.Spec.MatchConstraints.ResourceRules, gvk.Group, resource) {
			return true
		}
	}
	for _, p := range s.mutating {
		if p.applied() && rulesMayMatch(p.obj.Spec.MatchConstraints.ResourceRules, gvk.Group, resource) {
			return true
		}
	}
	return false
}

func rulesMayMatch(rules []admissionv1.NamedRuleWithOperations, group, resource string) bool {
	return slices.ContainsFunc(rules, func(r admissionv1.NamedRuleWithOperations) bool { return mayMatch(r, group, resource) })
}

func mayMatch(r admissionv1.NamedRuleWithOperations, group, resource string) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, v) || slices.Contains(list, "*") }
	if !slices.Contains(r.Operations, admissionv1.Create) && !slices.Contains(r.Operations, admissionv1.OperationAll) || !has(r.APIGroups, group) {
		return false
	}
	return slices.Contains(r.Resources, resource) || slices.Contains(r.Resources, "*") || slices.Contains(r.Resources, "*/*") || slices.Contains(
		r.Resources,
		resource+"/*",
	)
}
