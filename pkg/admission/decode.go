package admission

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// Input is an object handed to the package: its content as parsed from
// YAML or JSON, and the caller's handle for it, given back in problems and
// decisions.
type Input struct {
	Content map[string]any
	Ref     any
	// Normalized is true when Content comes from NormalizeJSON: Evaluate
	// then takes it as CEL sees it.
	Normalized bool
}

// Problem is a policy, binding or param the cluster would refuse, or one
// that leaves objects unchecked or denied whatever they hold. Problems say
// what is wrong in the policy's own words; they never quote an object
// under evaluation.
type Problem struct {
	Ref any
	// Field is the JSON pointer of the field at fault ("" for the object).
	Field string
	// Message says what is wrong, and Fix what to do.
	Message, Fix string
	// Limit is true when the problem is not a defect but a limit of
	// evaluating offline (a policy that asks the authorizer).
	Limit bool
	// Missing is true when the problem is an object the cluster lacks (the
	// policy a binding names): a caller that sees only part of the
	// cluster cannot tell.
	Missing bool
	// Validating is true when the problem is about a
	// ValidatingAdmissionPolicy or a binding of one, which changes no
	// object (what Admit makes of objects does not depend on it).
	Validating bool
}

// Policy kinds, as the API serves them. v1beta1 has the same fields and is
// read as v1.
const (
	Group       = "admissionregistration.k8s.io"
	KindPolicy  = "ValidatingAdmissionPolicy"
	KindBinding = "ValidatingAdmissionPolicyBinding"
)

// IsPolicy and IsBinding report whether apiVersion and kind name a
// ValidatingAdmissionPolicy or a binding of one.
func IsPolicy(apiVersion, kind string) bool  { return kind == KindPolicy && served(apiVersion) }
func IsBinding(apiVersion, kind string) bool { return kind == KindBinding && served(apiVersion) }

func served(apiVersion string) bool {
	return apiVersion == Group+"/v1" || apiVersion == Group+"/v1beta1"
}

// decodeStrict decodes content into out as the API server does with
// field validation Strict (kubectl's and Argo CD's server-side apply
// default): an unknown or duplicated field is an error.
func decodeStrict(content map[string]any, out any) error {
	data, err := json.Marshal(content)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(data, out)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// decodePolicy reads a ValidatingAdmissionPolicy and applies the API
// server's defaults (failurePolicy Fail; matchPolicy Equivalent, empty
// selectors and scope "*" in matchConstraints).
func decodePolicy(in Input) (*admissionv1.ValidatingAdmissionPolicy, *Problem) {
	var p admissionv1.ValidatingAdmissionPolicy
	if err := decodeStrict(in.Content, &p); err != nil {
		return nil, &Problem{Ref: in.Ref, Message: "the ValidatingAdmissionPolicy cannot be read: " + err.Error(), Fix: "correct it to " +
			"admissionregistration.k8s.io/v1's schema (kubectl explain validatingadmissionpolicy.spec)"}
	}
	if p.Spec.FailurePolicy == nil {
		f := admissionv1.Fail
		p.Spec.FailurePolicy = &f
	}
	if p.Spec.MatchConstraints == nil {
		return nil, &Problem{Ref: in.Ref, Field: "/spec", Message: fmt.Sprintf("ValidatingAdmissionPolicy %s has no spec.matchConstraints, which the API "+
			"server requires", p.Name), Fix: "give spec.matchConstraints.resourceRules naming the resources the policy checks"}
	}
	defaultMatchResources(p.Spec.MatchConstraints)
	if len(p.Spec.Validations) == 0 && len(p.Spec.AuditAnnotations) == 0 {
		return nil, &Problem{Ref: in.Ref, Field: "/spec", Message: fmt.Sprintf("ValidatingAdmissionPolicy %s has neither validations nor auditAnnotations, "+
			"which the API server requires", p.Name), Fix: "give spec.validations"}
	}
	return &p, nil
}

// decodeBinding reads a ValidatingAdmissionPolicyBinding with the API
// server's defaults, and refuses what its validation refuses about the
// fields evaluation depends on.
func decodeBinding(in Input) (*admissionv1.ValidatingAdmissionPolicyBinding, *Problem) {
	var b admissionv1.ValidatingAdmissionPolicyBinding
	if err := decodeStrict(in.Content, &b); err != nil {
		return nil, &Problem{Ref: in.Ref, Message: "the ValidatingAdmissionPolicyBinding cannot be read: " + err.Error(), Fix: "correct it to " +
			"admissionregistration.k8s.io/v1's schema (kubectl explain validatingadmissionpolicybinding.spec)"}
	}
	bad := func(field, msg, fix string) (*admissionv1.ValidatingAdmissionPolicyBinding, *Problem) {
		return nil, &Problem{Ref: in.Ref, Field: field, Message: fmt.Sprintf("ValidatingAdmissionPolicyBinding %s: %s", b.Name, msg), Fix: fix}
	}
	if b.Spec.PolicyName == "" {
		return bad("/spec", "spec.policyName is empty", "name the ValidatingAdmissionPolicy the binding binds")
	}
	if len(b.Spec.ValidationActions) == 0 {
		return bad("/spec", "spec.validationActions is empty, which the API server refuses", "give validationActions: [Deny], [Warn] or [Audit], or a combination")
	}
	for i, a := range b.Spec.ValidationActions {
		switch a {
		case admissionv1.Deny, admissionv1.Warn, admissionv1.Audit:
		default:
			return bad(fmt.Sprintf("/spec/validationActions/%d", i), fmt.Sprintf("validation action %q is not Deny, Warn or Audit", a), "use Deny, Warn or Audit")
		}
	}
	if field, msg, fix := checkParamRef(b.Spec.ParamRef); msg != "" {
		return bad(field, msg, fix)
	}
	if b.Spec.MatchResources != nil {
		defaultMatchResources(b.Spec.MatchResources)
	}
	return &b, nil
}

// checkParamRef refuses what the API server's validation refuses of a
// binding's paramRef: the field, what is wrong and the fix; msg is empty
// when nothing is.
func checkParamRef(r *admissionv1.ParamRef) (field, msg, fix string) {
	switch {
	case r == nil:
		return "", "", ""
	case r.Name != "" && r.Selector != nil:
		return "/spec/paramRef", "paramRef gives both name and selector", "give one of them"
	case r.Name == "" && r.Selector == nil:
		return "/spec/paramRef", "paramRef gives neither name nor selector", "give the param object's name, or a selector"
	case r.ParameterNotFoundAction == nil:
		return "/spec/paramRef", "paramRef has no parameterNotFoundAction, which the API server requires", "give parameterNotFoundAction: Deny (deny " +
			"when no param is found) or Allow"
	}
	if r.Selector != nil {
		if _, err := metav1.LabelSelectorAsSelector(r.Selector); err != nil {
			return "/spec/paramRef/selector", "paramRef.selector is not a valid label selector: " + err.Error(), "correct the selector"
		}
	}
	return "", "", ""
}

// defaultMatchResources applies the API server's defaults to match
// resources: matchPolicy Equivalent, empty (match everything) namespace and
// object selectors, and scope "*" in every rule.
func defaultMatchResources(m *admissionv1.MatchResources) {
	if m.MatchPolicy == nil {
		p := admissionv1.Equivalent
		m.MatchPolicy = &p
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				s := admissionv1.AllScopes
				rules[i].Scope = &s
			}
		}
	}
}
