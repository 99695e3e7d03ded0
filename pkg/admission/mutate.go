package admission

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// MutatingAdmissionPolicies are compiled here as the API server's
// MutatingAdmissionPolicy plugin compiles them (its compilePolicy), with
// the patchers of k8s.io/apiserver's mutating/patch package: a
// mutation's CEL expression builds a JSON Patch or an apply configuration
// that is merged with server-side apply's semantics. The plugin's own
// package is not linked, for the reason validate.go gives.

// Mutating policy kinds.
const (
	KindMutatingPolicy  = "MutatingAdmissionPolicy"
	KindMutatingBinding = "MutatingAdmissionPolicyBinding"
)

// IsMutatingPolicy and IsMutatingBinding report whether apiVersion and
// kind name a MutatingAdmissionPolicy or a binding of one (v1, or the
// v1beta1 and v1alpha1 of the clusters that had it behind its feature
// gate, read as v1).
func IsMutatingPolicy(apiVersion, kind string) bool {
	return kind == KindMutatingPolicy && servedMutating(apiVersion)
}

func IsMutatingBinding(apiVersion, kind string) bool {
	return kind == KindMutatingBinding && servedMutating(apiVersion)
}

func servedMutating(apiVersion string) bool {
	return served(apiVersion) || apiVersion == Group+"/v1alpha1"
}

// mutatingPolicy is a MutatingAdmissionPolicy and its bindings.
type mutatingPolicy struct {
	in       Input
	obj      *admissionv1.MutatingAdmissionPolicy
	c        *compiledMutation
	bindings []mutatingBinding
	params   paramSource
}

type mutatingBinding struct {
	in  Input
	obj *admissionv1.MutatingAdmissionPolicyBinding
}

// paramSource is where a policy's params come from: its paramKind, and
// the configuration error the API server reports when the cluster does not
// serve it.
type paramSource struct {
	kind       *admissionv1.ParamKind
	gvk        schema.GroupVersionKind
	namespaced bool
	err        error
}

func newParamSource(pk *admissionv1.ParamKind, resource func(schema.GroupVersionKind) (string, bool, bool)) paramSource {
	if pk == nil {
		return paramSource{}
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	ps := paramSource{kind: pk, gvk: gv.WithKind(pk.Kind)}
	_, namespaced, known := resource(ps.gvk)
	ps.namespaced = namespaced
	if err != nil || !known {
		ps.err = fmt.Errorf("failed to find resource referenced by paramKind: '%v'", ps.gvk)
	}
	return ps
}

// compiledMutation is a mutating policy compiled for evaluation.
type compiledMutation struct {
	compiler   *cel.CompositedCompiler
	conditions matchconditions.Matcher
	patchers   []patch.Patcher
	problems   []Problem
	// usesAuthorizer: an expression asks the authorizer.
	usesAuthorizer bool
}

// compileMutating returns the mutating policy compiled, once per
// Kubernetes version and policy content.
func (c *Compiler) compileMutating(p *admissionv1.MutatingAdmissionPolicy, kubeVersion string) *compiledMutation {
	spec, _ := json.Marshal(p.Spec)
	key := compileKey{kubeVersion, KindMutatingPolicy + string(spec)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.mutating[key]; ok {
		return got
	}
	out := compileMutatingForEvaluation(p)
	out.problems = mutatingProblems(p, kubeVersion)
	for _, e := range mutatingExpressions(p) {
		out.usesAuthorizer = out.usesAuthorizer || strings.Contains(e.text, "authorizer")
	}
	c.mutating[key] = out
	return out
}

// compileMutatingForEvaluation compiles p as the plugin does: variables
// stored first, then match conditions, then one patcher per mutation, in
// the stored expressions environment.
func compileMutatingForEvaluation(p *admissionv1.MutatingAdmissionPolicy) *compiledMutation {
	opts := cel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	out := &compiledMutation{}
	compiler, err := cel.NewCompositedCompiler(evaluationEnv())
	if err != nil {
		out.problems = []Problem{{Message: "the CEL environment cannot be built: " + err.Error()}}
		return out
	}
	out.compiler = compiler
	mode := environment.StoredExpressions
	out.conditions = compileVariablesAndConditions(compiler, p.Name, p.Spec.Variables, p.Spec.MatchConditions, p.Spec.FailurePolicy, opts)
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	for _, m := range p.Spec.Mutations {
		switch {
		case m.PatchType == admissionv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			res := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, patchOpts, mode)
			out.patchers = append(out.patchers, patch.NewJSONPatcher(budgetedMutation{res}))
		case m.PatchType == admissionv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			res := compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, patchOpts, mode)
			out.patchers = append(out.patchers, patch.NewApplyConfigurationPatcher(budgetedMutation{res}))
		default:
			out.patchers = append(out.patchers, nil) // refused by decodeMutatingPolicy
		}
	}
	return out
}

// mutatingExpressions lists every expression of p, in the order the API
// server compiles them.
func mutatingExpressions(p *admissionv1.MutatingAdmissionPolicy) []expression {
	var out []expression
	for i, v := range p.Spec.Variables {
		out = append(out, expression{fmt.Sprintf("/spec/variables/%d/expression", i), v.Expression, &variableExpr{name: v.Name, expr: v.Expression}, false})
	}
	for i := range p.Spec.MatchConditions {
		m := &p.Spec.MatchConditions[i]
		out = append(out, expression{fmt.Sprintf("/spec/matchConditions/%d/expression", i), m.Expression, (*matchconditions.MatchCondition)(m), false})
	}
	for i, m := range p.Spec.Mutations {
		switch {
		case m.JSONPatch != nil:
			out = append(out, expression{fmt.Sprintf("/spec/mutations/%d/jsonPatch/expression", i), m.JSONPatch.Expression,
				&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, false})
		case m.ApplyConfiguration != nil:
			out = append(out, expression{fmt.Sprintf("/spec/mutations/%d/applyConfiguration/expression", i), m.ApplyConfiguration.Expression,
				&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, false})
		}
	}
	return out
}

// mutatingProblems compiles every expression of p as the API server of
// kubeVersion does when the policy is created (see compileProblems).
func mutatingProblems(p *admissionv1.MutatingAdmissionPolicy, kubeVersion string) []Problem {
	compiler, err := newExpressionsCompiler(kubeVersion)
	if err != nil {
		return []Problem{{Message: "the CEL environment cannot be built: " + err.Error()}}
	}
	var out []Problem
	for _, e := range mutatingExpressions(p) {
		vars := cel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
		var res cel.CompilationResult
		switch a := e.accessor.(type) {
		case *variableExpr:
			res = compiler.CompileAndStoreVariable(a, vars, environment.NewExpressions)
		case *patch.JSONPatchCondition, *patch.ApplyConfigurationCondition:
			vars.HasPatchTypes = true
			res = compiler.Compiler.CompileCELExpression(e.accessor, vars, environment.NewExpressions)
		default:
			res = compiler.Compiler.CompileCELExpression(e.accessor, vars, environment.NewExpressions)
		}
		if res.Error != nil {
			out = append(out, Problem{Field: e.field, Message: fmt.Sprintf("%s %s: %s does not compile: %s", KindMutatingPolicy, p.Name,
				pointerToPath(e.field), res.Error.Detail), Fix: "correct the expression; the API server refuses the policy as it is"})
		}
	}
	return out
}
