package admission

import (
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// decodeMutatingPolicy reads a MutatingAdmissionPolicy with the API
// server's defaults (failurePolicy Fail, reinvocationPolicy Never, and
// those of matchConstraints), and refuses what its validation refuses about
// the fields evaluation depends on.
func decodeMutatingPolicy(in Input) (*admissionv1.MutatingAdmissionPolicy, *Problem) {
	var p admissionv1.MutatingAdmissionPolicy
	if err := decodeStrict(in.Content, &p); err != nil {
		return nil, &Problem{Ref: in.Ref, Message: "the MutatingAdmissionPolicy cannot be read: " + err.Error(), Fix: "correct it to " +
			"admissionregistration.k8s.io/v1's schema (kubectl explain mutatingadmissionpolicy.spec)"}
	}
	bad := func(field, msg, fix string) (*admissionv1.MutatingAdmissionPolicy, *Problem) {
		return nil, &Problem{Ref: in.Ref, Field: field, Message: fmt.Sprintf("%s %s: %s", KindMutatingPolicy, p.Name, msg), Fix: fix}
	}
	if p.Spec.FailurePolicy == nil {
		f := admissionv1.Fail
		p.Spec.FailurePolicy = &f
	}
	switch p.Spec.ReinvocationPolicy {
	case "":
		p.Spec.ReinvocationPolicy = admissionv1.NeverReinvocationPolicy
	case admissionv1.NeverReinvocationPolicy, admissionv1.IfNeededReinvocationPolicy:
	default:
		return bad("/spec/reinvocationPolicy", fmt.Sprintf("reinvocationPolicy %q is not Never or IfNeeded", p.Spec.ReinvocationPolicy), "use Never or IfNeeded")
	}
	if p.Spec.MatchConstraints == nil {
		return bad("/spec", "spec.matchConstraints is missing, which the API server requires", "give spec.matchConstraints.resourceRules naming "+
			"the resources the policy mutates")
	}
	defaultMatchResources(p.Spec.MatchConstraints)
	if len(p.Spec.Mutations) == 0 {
		return bad("/spec", "spec.mutations is empty, which the API server refuses", "give at least one mutation")
	}
	for i, m := range p.Spec.Mutations {
		field := fmt.Sprintf("/spec/mutations/%d", i)
		switch m.PatchType {
		case admissionv1.PatchTypeJSONPatch:
			if m.JSONPatch == nil || m.JSONPatch.Expression == "" {
				return bad(field, "patchType JSONPatch without jsonPatch.expression", "give jsonPatch.expression")
			}
			if m.ApplyConfiguration != nil {
				return bad(field, "patchType JSONPatch with an applyConfiguration", "give one of them")
			}
		case admissionv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration == nil || m.ApplyConfiguration.Expression == "" {
				return bad(field, "patchType ApplyConfiguration without applyConfiguration.expression", "give applyConfiguration.expression")
			}
			if m.JSONPatch != nil {
				return bad(field, "patchType ApplyConfiguration with a jsonPatch", "give one of them")
			}
		default:
			return bad(field+"/patchType", fmt.Sprintf("patchType %q is not ApplyConfiguration or JSONPatch", m.PatchType), "use ApplyConfiguration "+
				"or JSONPatch")
		}
	}
	return &p, nil
}

// decodeMutatingBinding reads a MutatingAdmissionPolicyBinding with the
// API server's defaults.
func decodeMutatingBinding(in Input) (*admissionv1.MutatingAdmissionPolicyBinding, *Problem) {
	var b admissionv1.MutatingAdmissionPolicyBinding
	if err := decodeStrict(in.Content, &b); err != nil {
		return nil, &Problem{Ref: in.Ref, Message: "the MutatingAdmissionPolicyBinding cannot be read: " + err.Error(), Fix: "correct it to " +
			"admissionregistration.k8s.io/v1's schema (kubectl explain mutatingadmissionpolicybinding.spec)"}
	}
	if b.Spec.PolicyName == "" {
		return nil, &Problem{Ref: in.Ref, Field: "/spec", Message: fmt.Sprintf("%s %s: spec.policyName is empty", KindMutatingBinding, b.Name),
			Fix: "name the MutatingAdmissionPolicy the binding binds"}
	}
	if field, msg, fix := checkParamRef(b.Spec.ParamRef); msg != "" {
		return nil, &Problem{Ref: in.Ref, Field: field, Message: fmt.Sprintf("%s %s: %s", KindMutatingBinding, b.Name, msg), Fix: fix}
	}
	if b.Spec.MatchResources != nil {
		defaultMatchResources(b.Spec.MatchResources)
	}
	return &b, nil
}
