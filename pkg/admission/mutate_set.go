package admission

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// FeatureMutatingAdmissionPolicy is the API server's feature gate of
// mutating policies.
const FeatureMutatingAdmissionPolicy = "MutatingAdmissionPolicy"

// mutatingEnabled reports whether an API server of kubeVersion with gates
// runs mutating policies: from 1.36 unless the gate is turned off, from
// 1.32 when it is turned on, never before. It says why not when it does
// not.
func mutatingEnabled(kubeVersion string, gates map[string]bool) (bool, string) {
	v, err := version.ParseGeneric(kubeVersion)
	if err != nil {
		return true, "" // the library's own version
	}
	gate, set := gates[FeatureMutatingAdmissionPolicy]
	switch {
	case v.Minor() >= 36 && (!set || gate):
		return true, ""
	case v.Minor() >= 36:
		return false, "its API server has the MutatingAdmissionPolicy feature gate turned off"
	case v.Minor() >= 32 && gate:
		return true, ""
	case v.Minor() >= 32:
		return false, fmt.Sprintf("Kubernetes %d.%d runs them only with the MutatingAdmissionPolicy feature gate on (off by default before 1.36)",
			v.Major(), v.Minor())
	}
	return false, fmt.Sprintf("Kubernetes %d.%d has no MutatingAdmissionPolicy (alpha in 1.32, on by default from 1.36)", v.Major(), v.Minor())
}

// addMutating decodes and compiles a MutatingAdmissionPolicy.
func (s *Set) addMutating(in Input, byName map[string]*mutatingPolicy) []Problem {
	p, prob := decodeMutatingPolicy(in)
	if prob != nil {
		return []Problem{*prob}
	}
	if on, why := mutatingEnabled(s.opts.KubeVersion, s.opts.FeatureGates); !on {
		return []Problem{{Ref: in.Ref, Message: fmt.Sprintf("%s %s is deployed to a cluster that does not run mutating policies: %s", KindMutatingPolicy,
			p.Name, why), Fix: "turn the feature gate on in the cluster and say so in clusters.<cluster>.featureGates of repotool.yaml, or do not deploy " +
			"the policy there"}}
	}
	if _, dup := byName[p.Name]; dup {
		return []Problem{{Ref: in.Ref, Message: fmt.Sprintf("%s %s is deployed twice to the cluster; the last one applied wins", KindMutatingPolicy,
			p.Name), Fix: "keep one"}}
	}
	mp := &mutatingPolicy{in: in, obj: p, c: s.opts.Compiler.compileMutating(p, s.opts.KubeVersion), params: newParamSource(p.Spec.ParamKind,
		s.opts.Resource)}
	var problems []Problem
	for _, cp := range mp.c.problems {
		cp.Ref = in.Ref
		problems = append(problems, cp)
	}
	byName[p.Name] = mp
	s.mutating = append(s.mutating, mp)
	return problems
}

// bindMutating adds a MutatingAdmissionPolicyBinding to its policy.
func (s *Set) bindMutating(in Input, byName map[string]*mutatingPolicy) []Problem {
	b, prob := decodeMutatingBinding(in)
	if prob != nil {
		return []Problem{*prob}
	}
	mp := byName[b.Spec.PolicyName]
	if mp == nil {
		if on, _ := mutatingEnabled(s.opts.KubeVersion, s.opts.FeatureGates); !on {
			return nil // its policy is reported
		}
		return []Problem{{Ref: in.Ref, Field: "/spec/policyName", Message: fmt.Sprintf("%s %s binds %s %s, which the cluster does not have",
			KindMutatingBinding, b.Name, KindMutatingPolicy, b.Spec.PolicyName), Fix: "deploy the policy to this cluster, name it in " +
			"clusters.<cluster>.admissionPolicies of repotool.yaml, or correct spec.policyName", Missing: true}}
	}
	mp.bindings = append(mp.bindings, mutatingBinding{in, b})
	return nil
}

// sortMutating puts the mutating policies and their bindings in name
// order, the order they are applied in (the API server's is not defined:
// it ranges over a map), and reports those it cannot evaluate.
func (s *Set) sortMutating() []Problem {
	slices.SortFunc(s.mutating, func(a, b *mutatingPolicy) int { return strings.Compare(a.obj.Name, b.obj.Name) })
	var problems []Problem
	for _, mp := range s.mutating {
		slices.SortFunc(mp.bindings, func(a, b mutatingBinding) int { return strings.Compare(a.obj.Name, b.obj.Name) })
		if mp.c.usesAuthorizer && len(mp.bindings) > 0 {
			problems = append(problems, Problem{Ref: mp.in.Ref, Message: fmt.Sprintf("%s %s asks the authorizer, which only the cluster can answer: "+
				"repotool does not apply it", KindMutatingPolicy, mp.obj.Name), Fix: "none needed; the cluster still applies it", Limit: true})
		}
	}
	return problems
}

// Mutates reports whether the Set has a bound mutating policy it applies.
func (s *Set) Mutates() bool {
	return slices.ContainsFunc(s.mutating, (*mutatingPolicy).applied)
}

// applied reports whether the policy is applied to objects: it is bound,
// compiled, and does not ask the authorizer.
func (p *mutatingPolicy) applied() bool {
	return len(p.bindings) > 0 && !p.c.usesAuthorizer && p.c.compiler != nil
}
