package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	celgo "github.com/google/cel-go/cel"
	celtypes "github.com/google/cel-go/common/types"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// A policy's validations are put to an object here, with the API server's
// CEL compiler, filters, match conditions and matcher (k8s.io/apiserver's
// cel, matchconditions and matching packages) and the semantics of its
// ValidatingAdmissionPolicy plugin, written from its documentation and
// held to the plugin itself by the oracle and parity tests. The plugin's
// own package is not linked: it brings client-go's informers and fake
// clientset into every command's start (issue 47), and none is used here.

// The CEL expressions of a policy, as the compiler reads them: each kind
// declares the types its expression may return.
type (
	variableExpr   struct{ name, expr string }
	validationExpr struct{ expr string }
	messageExpr    struct{ expr string }
	auditExpr      struct{ expr string }
)

func (v *variableExpr) GetExpression() string { return v.expr }
func (v *variableExpr) GetName() string       { return v.name }
func (v *variableExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.AnyType, celgo.DynType}
}
func (v *validationExpr) GetExpression() string      { return v.expr }
func (v *validationExpr) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.BoolType} }
func (m *messageExpr) GetExpression() string         { return m.expr }
func (m *messageExpr) ReturnTypes() []*celgo.Type    { return []*celgo.Type{celgo.StringType} }
func (a *auditExpr) GetExpression() string           { return a.expr }
func (a *auditExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.StringType, celgo.NullType}
}

// verdictKind is what one validation, or the policy as a whole, decided.
type verdictKind int

const (
	admitted verdictKind = iota
	denied               // the expression was false
	failed               // it could not be evaluated, and the failure policy denies
	ignored              // it could not be evaluated, and the failure policy admits
)

// verdict is one decision of a policy for an object: per validation, in
// their order, or one for the whole policy (a compile or match condition
// error).
type verdict struct {
	kind    verdictKind
	message string
	reason  metav1.StatusReason
}

// validated is what a policy decided for an object: verdicts, and the
// audit annotations whose expressions failed while the failure policy
// denies.
type validated struct {
	verdicts    []verdict
	auditErrors []string
}

// policyValidator is a policy compiled for evaluation.
type policyValidator struct {
	compileErr  error
	conditions  matchconditions.Matcher
	validations cel.ConditionEvaluator
	messages    cel.ConditionEvaluator
	audits      cel.ConditionEvaluator
	specs       []admissionv1.Validation
	auditSpecs  []admissionv1.AuditAnnotation
	ignore      bool // failurePolicy: Ignore
}

// onError is the verdict for an error, by the failure policy.
func (v *policyValidator) onError(msg string) verdict {
	if v.ignore {
		return verdict{kind: ignored, message: msg}
	}
	return verdict{kind: failed, message: msg}
}

// validate puts one object, with its param and namespace, to the policy.
func (v *policyValidator) validate(ctx context.Context, resource schema.GroupVersionResource, obj *admission.VersionedAttributes, param runtime.Object,
	namespace *corev1.Namespace) validated {
	if v.compileErr != nil {
		return validated{verdicts: []verdict{v.onError(v.compileErr.Error())}}
	}
	if v.conditions != nil {
		m := v.conditions.Match(ctx, obj, param, nil)
		switch {
		case m.Error != nil:
			return validated{verdicts: []verdict{v.onError(m.Error.Error())}}
		case !m.Matches:
			return validated{}
		}
	}
	req := cel.CreateAdmissionRequest(obj.Attributes, metav1.GroupVersionResource(resource), metav1.GroupVersionKind(obj.VersionedKind))
	ns := cel.CreateNamespaceObject(namespace)
	results, left, err := v.validations.ForInput(ctx, obj, req, cel.OptionalVariableBindings{VersionedParams: param}, ns, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return validated{verdicts: []verdict{v.onError(err.Error())}}
	}
	messages, _, msgErr := v.messages.ForInput(ctx, obj, req, cel.OptionalVariableBindings{VersionedParams: param}, ns, left)
	out := validated{verdicts: make([]verdict, len(results))}
	for i, r := range results {
		switch {
		case r.Error != nil:
			out.verdicts[i] = v.onError(r.Error.Error())
		case errors.Is(msgErr, apiservercel.ErrInternal) || errors.Is(msgErr, apiservercel.ErrOutOfBudget):
			out.verdicts[i] = v.onError("failed messageExpression: " + msgErr.Error())
		case r.EvalResult != celtypes.True:
			out.verdicts[i] = v.denial(i, messages)
		}
	}
	audits, _, err := v.audits.ForInput(ctx, obj, req, cel.OptionalVariableBindings{VersionedParams: param}, namespace, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return validated{verdicts: []verdict{v.onError(err.Error())}}
	}
	out.auditErrors = v.auditFailures(audits)
	return out
}

// denial is validation i's verdict when its expression is false: the
// message its messageExpression makes when that is one line of text within
// the API server's limit, else its message, else the expression.
func (v *policyValidator) denial(i int, messages []cel.EvaluationResult) verdict {
	spec := v.specs[i]
	d := verdict{kind: denied, reason: metav1.StatusReasonInvalid}
	if spec.Reason != nil {
		d.reason = *spec.Reason
	}
	if i < len(messages) && messages[i].Error == nil && messages[i].EvalResult != nil {
		if s, ok := messages[i].EvalResult.Value().(string); ok {
			s = strings.TrimSpace(s)
			if len(s) <= celconfig.MaxEvaluatedMessageExpressionSizeBytes && !strings.Contains(s, "\n") {
				d.message = s
			}
		}
	}
	if d.message == "" {
		d.message = strings.TrimSpace(spec.Message)
	}
	if d.message == "" {
		d.message = "failed expression: " + strings.TrimSpace(spec.Expression)
	}
	return d
}

// auditFailures are the audit annotations that fail the request: an
// expression that cannot be evaluated, or whose value is neither a string
// nor null, under a failure policy that denies (an unsupported type fails
// whatever the failure policy).
func (v *policyValidator) auditFailures(results []cel.EvaluationResult) []string {
	var out []string
	for i, r := range results {
		switch {
		case r.ExpressionAccessor == nil:
		case r.Error != nil && !v.ignore:
			out = append(out, r.Error.Error())
		case r.Error != nil:
		case r.EvalResult.Type() != celtypes.StringType && r.EvalResult.Type() != celtypes.NullType:
			out = append(out, fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.",
				v.auditSpecs[i].ValueExpression, r.EvalResult.Type()))
		}
	}
	return out
}

// selectors are a policy's or binding's match resources, as the matcher
// reads them.
type selectors struct{ m *admissionv1.MatchResources }

func (s selectors) GetParsedNamespaceSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(s.m.NamespaceSelector)
}

func (s selectors) GetParsedObjectSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(s.m.ObjectSelector)
}

func (s selectors) GetMatchResources() admissionv1.MatchResources { return *s.m }

var _ matching.MatchCriteria = selectors{}

// policyMatches reports whether a policy's match constraints select the
// request, and as which resource and kind (matchPolicy Equivalent may
// match another version); a policy without them, or with a nil selector,
// is an error as in the API server.
func policyMatches(m *matching.Matcher, a admission.Attributes, o admission.ObjectInterfaces, c *admissionv1.MatchResources) (bool,
	schema.GroupVersionResource, schema.GroupVersionKind, error) {
	err := checkSelectors(c)
	if c == nil {
		err = errors.New("policy contained no match constraints, a required field")
	}
	if err != nil {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, err
	}
	return m.Matches(a, o, selectors{c})
}

// bindingMatches reports whether a binding's match resources select the
// request; a binding without them selects every request its policy does.
func bindingMatches(m *matching.Matcher, a admission.Attributes, o admission.ObjectInterfaces, c *admissionv1.MatchResources) (bool, error) {
	if c == nil {
		return true, nil
	}
	if err := checkSelectors(c); err != nil {
		return false, err
	}
	ok, _, _, err := m.Matches(a, o, selectors{c})
	return ok, err
}

// checkSelectors refuses match resources the matcher cannot read, in the
// API server's words.
func checkSelectors(c *admissionv1.MatchResources) error {
	switch {
	case c == nil:
		return nil
	case c.NamespaceSelector == nil:
		return errors.New("a nil namespace selector was passed, please ensure selectors are initialized properly")
	case c.ObjectSelector == nil:
		return errors.New("a nil object selector was passed, please ensure selectors are initialized properly")
	}
	return nil
}
