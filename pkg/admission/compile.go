package admission

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/repotool/repotool/internal/jsonptr"
)

// Compiler compiles policies, each at most once per Kubernetes version
// however many clusters deploy it (a cache keyed by the policy's content).
// It is safe for concurrent use.
type Compiler struct {
	mu       sync.Mutex
	cache    map[compileKey]*compiled
	mutating map[compileKey]*compiledMutation
}

type compileKey struct{ version, policy string }

// compiled is a policy compiled for evaluation, and what compiling it as a
// new object found wrong.
type compiled struct {
	validator *policyValidator
	problems  []Problem // Ref unset: the caller's is filled in
	// usesAuthorizer: an expression asks the authorizer, which offline
	// evaluation cannot answer.
	usesAuthorizer bool
}

// NewCompiler returns an empty Compiler.
func NewCompiler() *Compiler {
	return &Compiler{cache: map[compileKey]*compiled{}, mutating: map[compileKey]*compiledMutation{}}
}

// evaluationEnv is the environment the admission plugin compiles policies
// in: the base environment at the API server's compatibility version, with
// strict cost accounting.
var evaluationEnv = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// compile returns the policy compiled for evaluation, and its compilation
// problems as the API server of kubeVersion ("v1.33.5"; empty: the library's
// own) finds them when the policy is created.
func (c *Compiler) compile(p *admissionv1.ValidatingAdmissionPolicy, kubeVersion string) *compiled {
	spec, _ := json.Marshal(p.Spec)
	key := compileKey{kubeVersion, string(spec)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.cache[key]; ok {
		return got
	}
	out := &compiled{validator: compileForEvaluation(p), problems: compileProblems(p, kubeVersion)}
	for _, e := range expressions(p) {
		out.usesAuthorizer = out.usesAuthorizer || strings.Contains(e.text, "authorizer")
	}
	c.cache[key] = out
	return out
}

// compileForEvaluation compiles p as the ValidatingAdmissionPolicy
// admission plugin does: variables stored first, then match conditions,
// validations, audit annotations and message expressions, in the stored
// expressions environment, params declared when the policy has a paramKind
// and the authorizer for all but message expressions.
func compileForEvaluation(p *admissionv1.ValidatingAdmissionPolicy) *policyValidator {
	withParams := p.Spec.ParamKind != nil
	vars := cel.OptionalVariableDeclarations{HasParams: withParams, HasAuthorizer: true}
	messageVars := cel.OptionalVariableDeclarations{HasParams: withParams}
	v := &policyValidator{specs: p.Spec.Validations, auditSpecs: p.Spec.AuditAnnotations,
		ignore: p.Spec.FailurePolicy != nil && *p.Spec.FailurePolicy == admissionv1.Ignore}
	compiler, err := cel.NewCompositedCompiler(evaluationEnv())
	if err != nil {
		v.compileErr = err
		return v
	}
	mode := environment.StoredExpressions
	v.conditions = compileVariablesAndConditions(compiler, p.Name, p.Spec.Variables, p.Spec.MatchConditions, p.Spec.FailurePolicy, vars)
	validations := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	for i, x := range p.Spec.Validations {
		validations[i] = &validationExpr{expr: x.Expression}
		if x.MessageExpression != "" {
			messages[i] = &messageExpr{expr: x.MessageExpression}
		}
	}
	audits := make([]cel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, a := range p.Spec.AuditAnnotations {
		audits[i] = &auditExpr{expr: a.ValueExpression}
	}
	v.validations = budgeted{compiler.CompileCondition(validations, vars, mode)}
	v.audits = budgeted{compiler.CompileCondition(audits, vars, mode)}
	v.messages = budgeted{compiler.CompileCondition(messages, messageVars, mode)}
	return v
}

// compileVariablesAndConditions stores a policy's variables in compiler
// and compiles its match conditions, as both admission plugins do first;
// nil when it has none.
func compileVariablesAndConditions(compiler *cel.CompositedCompiler, name string, variables []admissionv1.Variable,
	conditions []admissionv1.MatchCondition, failure *admissionv1.FailurePolicyType, vars cel.OptionalVariableDeclarations) matchconditions.Matcher {
	for _, x := range variables {
		compiler.CompileAndStoreVariable(&variableExpr{name: x.Name, expr: x.Expression}, vars, environment.StoredExpressions)
	}
	if len(conditions) == 0 {
		return nil
	}
	conds := make([]cel.ExpressionAccessor, len(conditions))
	for i := range conditions {
		conds[i] = (*matchconditions.MatchCondition)(&conditions[i])
	}
	return matchconditions.NewMatcher(compiler.CompileCondition(conds, vars, environment.StoredExpressions), failure, "policy", "validate", name)
}

// expression is one CEL expression of a policy, with its field.
type expression struct {
	field, text string
	accessor    cel.ExpressionAccessor
	message     bool // a messageExpression: no authorizer
}

// expressions lists every expression of p, in the order the API server
// compiles them.
func expressions(p *admissionv1.ValidatingAdmissionPolicy) []expression {
	var out []expression
	add := func(field, expr string, accessor cel.ExpressionAccessor, message bool) {
		out = append(out, expression{field, expr, accessor, message})
	}
	for i, v := range p.Spec.Variables {
		add(fmt.Sprintf("/spec/variables/%d/expression", i), v.Expression, &variableExpr{name: v.Name, expr: v.Expression}, false)
	}
	for i := range p.Spec.MatchConditions {
		m := &p.Spec.MatchConditions[i]
		add(fmt.Sprintf("/spec/matchConditions/%d/expression", i), m.Expression, (*matchconditions.MatchCondition)(m), false)
	}
	for i, v := range p.Spec.Validations {
		add(fmt.Sprintf("/spec/validations/%d/expression", i), v.Expression, &validationExpr{expr: v.Expression}, false)
		if v.MessageExpression != "" {
			add(fmt.Sprintf("/spec/validations/%d/messageExpression", i), v.MessageExpression,
				&messageExpr{expr: v.MessageExpression}, true)
		}
	}
	for i, a := range p.Spec.AuditAnnotations {
		add(fmt.Sprintf("/spec/auditAnnotations/%d/valueExpression", i), a.ValueExpression,
			&auditExpr{expr: a.ValueExpression}, false)
	}
	return out
}

// compileProblems compiles every expression of p as the API server of
// kubeVersion does when the policy is created or updated: in the new
// expressions environment of its compatibility version (the minor before
// its own), where a function newer than that does not exist yet.
func compileProblems(p *admissionv1.ValidatingAdmissionPolicy, kubeVersion string) []Problem {
	compiler, err := newExpressionsCompiler(kubeVersion)
	if err != nil {
		return []Problem{{Message: "the CEL environment cannot be built: " + err.Error()}}
	}
	withParams := p.Spec.ParamKind != nil
	var out []Problem
	for _, e := range expressions(p) {
		vars := cel.OptionalVariableDeclarations{HasParams: withParams, HasAuthorizer: !e.message}
		var res cel.CompilationResult
		if v, ok := e.accessor.(*variableExpr); ok {
			res = compiler.CompileAndStoreVariable(v, vars, environment.NewExpressions)
		} else {
			res = compiler.Compiler.CompileCELExpression(e.accessor, vars, environment.NewExpressions)
		}
		if res.Error != nil {
			out = append(out, Problem{Field: e.field, Message: fmt.Sprintf(
				"ValidatingAdmissionPolicy %s: %s does not compile: %s",
				p.Name,
				pointerToPath(e.field),
				res.Error.Detail,
			), Fix: "correct the expression; the API server " +
				"refuses the policy as it is"})
		}
	}
	return out
}

// newExpressionsCompiler is the compiler the API server of kubeVersion
// ("": the library's own) checks a new policy's expressions with.
func newExpressionsCompiler(kubeVersion string) (*cel.CompositedCompiler, error) {
	env := evaluationEnv()
	if v, err := version.ParseGeneric(kubeVersion); err == nil && v.Minor() > 0 {
		env = environment.MustBaseEnvSet(version.MajorMinor(v.Major(), v.Minor()-1))
	}
	return cel.NewCompositedCompiler(env)
}

// pointerToPath writes a JSON pointer as kubectl explain's path:
// /spec/validations/0/expression → spec.validations[0].expression.
func pointerToPath(p string) string {
	var b strings.Builder
	for _, seg := range jsonptr.Split(p) {
		if seg != "" && seg[0] >= '0' && seg[0] <= '9' {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}
