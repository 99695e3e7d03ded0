package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/render"
)

// The findings of the admission-policy rule about the objects a policy
// would deny, warn about or audit: where to fix them, and what of the
// policy's message may be shown.

// violation is the finding of one decision about a rendered object.
func (ac *admissionCheck) violation(set *admission.Set, cluster string, ref *admissionRef, d admission.Decision) Finding {
	p := ref.p
	severity, verb := SeverityInfo, "would audit"
	for _, a := range d.Actions {
		switch {
		case a == admissionv1.Deny:
			severity, verb = SeverityError, "would deny"
		case a == admissionv1.Warn && severity != SeverityError:
			severity, verb = SeverityWarning, "would warn about"
		}
	}
	refs := []*admissionRef{ref, d.PolicyRef.(*admissionRef)}
	for _, r := range []any{d.BindingRef, d.ParamRef} {
		if r, ok := r.(*admissionRef); ok {
			refs = append(refs, r)
		}
	}
	msg, guard := ac.shownMessage(ref, d), ac.guard
	if msg == d.StaticMessage {
		guard = nil // the policy's own words: withheld only when its rendering's secret values made them
	}
	msg = withoutSecrets(guard, msg, "the policy's message is withheld: it holds a secret value", refs...)
	binding := ""
	if d.Binding != "" {
		binding = fmt.Sprintf(" (binding %s)", d.Binding)
	}
	kind, after := "ValidatingAdmissionPolicy", ""
	if d.Mutating {
		kind = admission.KindMutatingPolicy
	} else if len(ref.mutations) > 0 {
		after = fmt.Sprintf(" (as admitted, after MutatingAdmissionPolicy %s)", mutatingPolicies(ref.mutations))
	}
	f := Finding{
		Severity: severity, Object: p.o.ID(), Targets: []string{p.res.Target.Name()},
		Message: fmt.Sprintf("%s %s%s %s %s%s in cluster %s: %s", kind, d.Policy, binding, verb, p.o.ID(), after, cluster, msg),
		Key:     fmt.Sprintf("%s/%s/%d", d.Policy, d.Binding, d.Validation),
	}
	f.File, f.Line = ac.violationPosition(set, ref, d)
	if f.File != p.o.Source.String() {
		f.Template = p.o.Source.String()
	}
	f.Related = append(f.Related, ac.admissionLocation(d.PolicyRef.(*admissionRef), "", "the policy"))
	if d.BindingRef != nil {
		f.Related = append(f.Related, ac.admissionLocation(d.BindingRef.(*admissionRef), "", "the binding"))
	}
	if d.ParamRef != nil {
		f.Related = append(f.Related, ac.admissionLocation(d.ParamRef.(*admissionRef), "", "the param"))
	}
	return f
}

// violationPosition is where to fix a failed validation: the mutating
// policy that set a field the expression reads, else where the field's
// value is set (fieldPosition).
func (ac *admissionCheck) violationPosition(set *admission.Set, ref *admissionRef, d admission.Decision) (string, int) {
	p := ref.p
	fields := set.Fields(ac.ctx, d)
	for _, ptr := range fields {
		if m := mutationOf(ref.mutations, ptr); m != nil { // set by a mutating policy: fixed there
			loc := ac.admissionLocation(m.PolicyRef.(*admissionRef), "/spec/mutations", "")
			return loc.File, loc.Line
		}
	}
	return ac.fieldPosition(p, ref.content, fields)
}

// fieldPosition is where the value of one of fields of p (as content
// holds it) is set: the values line, else the template line, else the
// object's.
func (ac *admissionCheck) fieldPosition(p *placed, content map[string]any, fields []string) (string, int) {
	for _, ptr := range fields {
		if file, line := valueOriginIn(ac.at, p.res, content, ptr); line > 0 {
			return file, line
		}
	}
	for _, ptr := range fields {
		if file, line := valuePartOrigin(ac.at, p.res, content, ptr); line > 0 {
			return file, line
		}
	}
	for _, ptr := range fields {
		if line := ac.at.templateLine(p.o, ptr); line > 0 {
			return p.o.Source.String(), line
		}
	}
	return p.o.Source.String(), ac.at.objectPosition(p.o)
}

// mutationOf is the last mutation that set the field at ptr, or a field
// that holds it; nil when none did.
func mutationOf(mutations []admission.Mutation, ptr string) *admission.Mutation {
	for i := len(mutations) - 1; i >= 0; i-- {
		for _, f := range mutations[i].Fields {
			if f == ptr || strings.HasPrefix(ptr, f+"/") {
				return &mutations[i]
			}
		}
	}
	return nil
}

// mutatingPolicies names the policies of mutations, in order, once each.
func mutatingPolicies(mutations []admission.Mutation) string {
	var names []string
	for _, m := range mutations {
		if !slices.Contains(names, m.Policy) {
			names = append(names, m.Policy)
		}
	}
	return strings.Join(names, ", ")
}

// shownMessage is the decision's message as a finding may show it: the
// API server's, unless it is made from the evaluation's inputs (a
// messageExpression, an evaluation error) and any of them carries secret
// data: the object (as admitted, with the policies and params its
// mutations read), the param or the policy; then the policy's static
// message, whatever the message holds. The guard (withoutSecrets) is the
// second line.
func (ac *admissionCheck) shownMessage(ref *admissionRef, d admission.Decision) string {
	if d.Message == d.StaticMessage {
		return d.Message
	}
	if ac.carriesSecrets(ref, d.Message) {
		return d.StaticMessage
	}
	for _, r := range []any{d.ParamRef, d.PolicyRef} {
		if r, ok := r.(*admissionRef); ok && r.p != nil && ac.carriesSecrets(r, d.Message) {
			return d.StaticMessage
		}
	}
	return d.Message
}

// withoutSecrets returns msg, or withheld when msg may quote a value
// decrypted for the cluster's renderings (guard, in any form it knows:
// for a message an evaluation made; nil for words of the policy's own) or
// for the rendering of one of refs: a policy whose expression a chart
// made from a secret value is quoted by "failed expression: ..." and by
// its compilation errors.
func withoutSecrets(guard *render.Guard, msg, withheld string, refs ...*admissionRef) string {
	if guard.Quotes(msg) {
		return withheld
	}
	for _, r := range refs {
		if r.p != nil && r.p.res.FromSecrets(msg) {
			return withheld
		}
	}
	return msg
}

// carriesSecrets reports whether an evaluation of ref's object read
// secret data, or a message about it quotes a value: then only the
// policy's static message may be shown.
func (ac *admissionCheck) carriesSecrets(ref *admissionRef, msg string) bool {
	return ref.p.res.FromSecrets(msg) || ac.guard.Quotes(msg) || objectCarriesSecrets(ref.p, ref.content) || mutationsReadSecrets(ref.mutations)
}

// objectCarriesSecrets reports whether an object holds secret values:
// a Secret, a key or leaf of content (p's, when nil) that is or holds a
// value decrypted for its rendering (the renderer knows every one,
// however short, and its encodings), or a field a second rendering with
// placeholders finds, when the rendering made one.
func objectCarriesSecrets(p *placed, content map[string]any) bool {
	if content == nil {
		content = contentOf(p.o)
	}
	if p.o.IsSecret() || leafFromSecrets(p.res, content) {
		return true
	}
	fields, err := p.res.SecretFields()
	if err != nil {
		return true
	}
	return slices.ContainsFunc(fields, func(f render.SecretField) bool { return &p.res.Objects[f.Object] == p.o })
}

// mutationsReadSecrets reports whether a mutation of mutations read
// secret data besides the object: its policy or its param carries secret
// values (a Secret param, of any target: what it copies into the object
// can take any form).
func mutationsReadSecrets(mutations []admission.Mutation) bool {
	return slices.ContainsFunc(mutations, mutationReadsSecrets)
}

func mutationReadsSecrets(m admission.Mutation) bool {
	if _, ok := m.ParamRef.(secretParam); ok {
		return true
	}
	for _, r := range []any{m.PolicyRef, m.ParamRef} {
		if r, ok := r.(*admissionRef); ok && r.p != nil && objectCarriesSecrets(r.p, r.content) {
			return true
		}
	}
	return false
}

// leafFromSecrets reports whether a key or leaf of v is, or holds, a
// decrypted secret value.
func leafFromSecrets(res *render.Result, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if res.FromSecrets(k) || leafFromSecrets(res, e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if leafFromSecrets(res, e) {
				return true
			}
		}
	case nil:
	default:
		return res.FromSecrets(fmt.Sprint(x))
	}
	return false
}

// valuePartOrigin finds the plain values file and line of a value that is
// part of an offending string (the tag of "registry/app:latest"): the last
// values file, in merge order, with a string entry of at least four
// characters the field's value contains. Nothing for a value that may hold
// a secret.
func valuePartOrigin(at *positions, res *render.Result, content map[string]any, pointer string) (string, int) {
	cur, _ := jsonptr.Get(content, jsonptr.Split(pointer))
	s, ok := cur.(string)
	if !ok || res.FromSecrets(s) {
		return "", 0
	}
	return findInValues(at, &res.Target, scalarMatching(func(v string) bool { return len(v) >= 4 && strings.Contains(s, v) }))
}
