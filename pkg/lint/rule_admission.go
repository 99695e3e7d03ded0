package lint

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

var ruleAdmissionPolicy = &Rule{
	Rule: finding.Rule{
		ID:          "admission-policy",
		Summary:     "An object the repository deploys would be denied (or warned about, or audited) by a ValidatingAdmissionPolicy of its cluster, or a policy or binding the cluster would refuse.",
		Remediation: "Change the value the finding points at so that the object passes the policy, or change the policy; for a policy, binding or param problem, follow the finding's fix.",
		Severity:    SeverityError,
		Description: "For each cluster, repotool collects the ValidatingAdmissionPolicies and bindings (admissionregistration.k8s.io/v1) that the repository deploys to it, from the renderings of every tier, and those repotool.yaml names in `clusters.<cluster>.admissionPolicies` (files or folders, for policies deployed some other way, with their params). It then puts every object the repository deploys to the cluster to them as the API server puts a CREATE by Argo CD's application controller, with Kubernetes' own code (k8s.io/apiserver): the CEL environment and cost limits, matchConstraints (rules with wildcards, excludeResourceRules, matchPolicy, namespaceSelector, objectSelector), the binding's matchResources, paramKind and paramRef (params among the cluster's objects), matchConditions, variables, validations with message, messageExpression and reason, and failurePolicy. Namespace selectors see the labels of the Namespace objects the repository deploys, the label the API server sets on every namespace, the labels repotool's own Namespace objects carry, and `namespaces.<ns>.labels` of repotool.yaml. A binding's Deny is an error, Warn a warning, Audit an info. The finding is placed at the values file line that set the field the failing expression reads when it can be traced, else at the template. For an object that carries secret values, a messageExpression's output is not shown (it could quote a value): the validation's message is. A policy whose expression does not compile for the cluster's Kubernetes version, a binding of a policy the cluster does not have, a paramRef that selects nothing under parameterNotFoundAction Deny, and a policy or binding that cannot be read are reported at that object. Objects are evaluated as rendered: the API server's defaulting of built-in kinds is not applied.",
		Bad: finding.Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `replicas: 40   # the cluster's replica-limit policy allows 20
`},
		Good: finding.Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `replicas: 12
`},
	},
	check: checkAdmissionPolicies,
}

// admissionRef is where a policy, binding or param is: a rendered object,
// or a document of a file repotool.yaml names.
type admissionRef struct {
	p          *placed
	file       string
	node       *yaml.Node
	id, source string
}

func checkAdmissionPolicies(in *input, report func(Finding)) {
	compiler := admission.NewCompiler()
	for _, v := range in.clusterViews() {
		in.checkClusterAdmission(v, compiler, report)
	}
}

// checkClusterAdmission puts a cluster's objects to its policies.
func (in *input) checkClusterAdmission(v *clusterView, compiler *admission.Compiler, report func(Finding)) {
	var policies, bindings, objects []admission.Input
	add := func(content map[string]any, ref *admissionRef) {
		api, _ := content["apiVersion"].(string)
		kind, _ := content["kind"].(string)
		i := admission.Input{Content: content, Ref: ref}
		switch {
		case admission.IsPolicy(api, kind):
			policies = append(policies, i)
		case admission.IsBinding(api, kind):
			bindings = append(bindings, i)
		default:
			objects = append(objects, i)
		}
	}
	for i := range v.objs {
		p := &v.objs[i]
		add(withNamespace(contentOf(p.o), p.ns), &admissionRef{p: p})
	}
	for _, f := range in.admissionFiles(v.name, report) {
		add(f.content, f.ref)
	}
	if len(bindings) == 0 && len(policies) == 0 {
		return
	}
	cluster := &admission.Cluster{Namespaces: in.admissionNamespaces(v), Objects: objects}
	set, problems := admission.New(policies, bindings, cluster, admission.Options{
		KubeVersion: in.Repo.Config.ClusterKubeVersion(v.name), Resource: in.resourceOf(v), Compiler: compiler,
	})
	for _, pr := range problems {
		f := in.admissionFinding(pr.Ref.(*admissionRef), pr.Field)
		f.Message = fmt.Sprintf("%s (cluster %s); %s", pr.Message, v.name, pr.Fix)
		if pr.Limit {
			f.Severity = SeverityInfo
		}
		report(f)
	}
	if !set.Bound() {
		return
	}
	missing := map[*admissionRef][]string{}
	for _, o := range objects {
		ref := o.Ref.(*admissionRef)
		if ref.p == nil {
			continue // a param named in repotool.yaml: not deployed by the repository
		}
		for _, d := range set.Evaluate(in.ctx(), o) {
			if d.IsMissingParam() {
				b := d.BindingRef.(*admissionRef)
				missing[b] = append(missing[b], ref.p.o.ID())
				continue
			}
			report(in.violation(set, v.name, ref.p, d))
		}
	}
	for b, objs := range missing {
		f := in.admissionFinding(b, "/spec/paramRef")
		what := "the object it matches"
		if len(objs) > 1 {
			what = fmt.Sprintf("all %d objects it matches", len(objs))
		}
		f.Message = fmt.Sprintf("ValidatingAdmissionPolicyBinding %s: its paramRef selects no object in cluster %s and its parameterNotFoundAction is Deny, so the API server would deny %s (%s); deploy the param to the cluster (or name its file in clusters.%s.admissionPolicies), correct paramRef, or use parameterNotFoundAction: Allow",
			nameOf(b), v.name, what, firstAnd(objs), v.name)
		report(f)
	}
}

// violation is the finding of one decision about a rendered object.
func (in *input) violation(set *admission.Set, cluster string, p *placed, d admission.Decision) Finding {
	severity, verb := SeverityInfo, "would audit"
	for _, a := range d.Actions {
		switch {
		case a == admissionv1.Deny:
			severity, verb = SeverityError, "would deny"
		case a == admissionv1.Warn && severity != SeverityError:
			severity, verb = SeverityWarning, "would warn about"
		}
	}
	msg := d.Message
	if in.carriesSecrets(p, msg) || d.ParamRef != nil && d.ParamRef.(*admissionRef).p != nil && in.carriesSecrets(d.ParamRef.(*admissionRef).p, msg) {
		msg = d.StaticMessage
	}
	binding := ""
	if d.Binding != "" {
		binding = fmt.Sprintf(" (binding %s)", d.Binding)
	}
	f := Finding{
		Severity: severity, Object: p.o.ID(), Targets: []string{p.res.Target.Name()},
		Message: fmt.Sprintf("ValidatingAdmissionPolicy %s%s %s %s in cluster %s: %s", d.Policy, binding, verb, p.o.ID(), cluster, msg),
		Key:     fmt.Sprintf("%s/%s/%d", d.Policy, d.Binding, d.Validation),
	}
	f.File, f.Line = in.violationPosition(set, p, d)
	if f.File != p.o.Source.String() {
		f.Template = p.o.Source.String()
	}
	f.Related = append(f.Related, in.admissionLocation(d.PolicyRef.(*admissionRef), "", "the policy"))
	if d.BindingRef != nil {
		f.Related = append(f.Related, in.admissionLocation(d.BindingRef.(*admissionRef), "", "the binding"))
	}
	if d.ParamRef != nil {
		f.Related = append(f.Related, in.admissionLocation(d.ParamRef.(*admissionRef), "", "the param"))
	}
	return f
}

// violationPosition is where to fix a failed validation: the values line
// that set a field the expression reads, else that field's template line,
// else the object's.
func (in *input) violationPosition(set *admission.Set, p *placed, d admission.Decision) (string, int) {
	fields := set.Fields(in.ctx(), d)
	for _, ptr := range fields {
		if file, line := valueOrigin(in, p.res, p.o, ptr); line > 0 {
			return file, line
		}
	}
	for _, ptr := range fields {
		if file, line := valuePartOrigin(in, p.res, p.o, ptr); line > 0 {
			return file, line
		}
	}
	for _, ptr := range fields {
		if line := in.templateLine(p.o, ptr); line > 0 {
			return p.o.Source.String(), line
		}
	}
	return p.o.Source.String(), in.objectPosition(p.o)
}

// carriesSecrets reports whether an object holds secret values, or a
// message about it quotes one: then only the policy's static message may
// be shown. Every leaf is asked (the renderer knows every decrypted value,
// however short, and its encodings), and the fields a second rendering
// with placeholders finds, when the rendering made one.
func (in *input) carriesSecrets(p *placed, msg string) bool {
	if p.o.IsSecret() || p.res.FromSecrets(msg) || leafFromSecrets(p.res, contentOf(p.o)) {
		return true
	}
	fields, err := p.res.SecretFields()
	if err != nil {
		return true
	}
	return slices.ContainsFunc(fields, func(f render.SecretField) bool { return &p.res.Objects[f.Object] == p.o })
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

// admissionNamespaces are the cluster's namespaces with the labels
// namespace selectors see: those of the Namespace objects it deploys (and
// the one the API server sets), of the Namespace repotool writes for an
// application namespace, and repotool.yaml's.
func (in *input) admissionNamespaces(v *clusterView) map[string]map[string]string {
	out := map[string]map[string]string{}
	apps := map[string]bool{}
	for _, res := range in.Results {
		if res.Target.Cluster == v.name && res.Target.Tier != config.TierCluster {
			apps[res.Target.Namespace] = true
		}
	}
	for ns, labels := range v.namespaces {
		l := map[string]string{}
		if v.plan != nil && apps[ns] && !v.rendersNamespace(ns) {
			if generated, ok := v.plan.NamespaceLabels(ns); ok {
				for k, x := range generated {
					l[k] = x
				}
			}
		}
		for k, x := range in.Repo.Config.NamespaceLabels(ns) {
			l[k] = x
		}
		for k, x := range labels {
			l[k] = x
		}
		out[ns] = l
	}
	return out
}

// rendersNamespace reports whether the cluster's renderings hold the
// Namespace ns.
func (v *clusterView) rendersNamespace(ns string) bool {
	return slices.ContainsFunc(v.objs, func(p placed) bool {
		return p.o.Kind == "Namespace" && p.o.APIVersion == "v1" && p.o.Name == ns
	})
}

// resourceOf names a kind's resource and scope as the cluster's discovery
// would: a CRD the repository installs, else a built-in kind.
func (in *input) resourceOf(v *clusterView) func(schema.GroupVersionKind) (string, bool, bool) {
	return func(gvk schema.GroupVersionKind) (string, bool, bool) {
		if c, ok := in.CRDs.Lookup(gvk.Group, gvk.Kind); ok {
			return c.Plural, c.Scope != "Cluster", true
		}
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		known := builtinKind(gvk)
		namespaced := v.plan == nil || !v.plan.ClusterScoped(gvk.Group, gvk.Kind)
		return plural.Resource, namespaced, known
	}
}

func nameOf(r *admissionRef) string {
	if r.p != nil {
		return r.p.o.Name
	}
	_, name, _ := strings.Cut(r.id, " ")
	return name
}

// firstAnd writes "a" or "a and N others".
func firstAnd(ids []string) string {
	slices.Sort(ids)
	if len(ids) == 1 {
		return ids[0]
	}
	return fmt.Sprintf("%s and %d others", ids[0], len(ids)-1)
}

// valuePartOrigin finds the plain values file and line of a value that is
// part of an offending string (the tag of "registry/app:latest"): the last
// values file, in merge order, with a string entry of at least four
// characters the field's value contains. Nothing for a value that may hold
// a secret.
func valuePartOrigin(in *input, res *render.Result, o *manifest.Object, pointer string) (string, int) {
	cur, _ := valueAt(contentOf(o), strings.Split(strings.Trim(pointer, "/"), "/"))
	s, ok := cur.(string)
	if !ok || res.FromSecrets(s) {
		return "", 0
	}
	return findInValues(in, &res.Target, scalarMatching(func(v string) bool { return len(v) >= 4 && strings.Contains(s, v) }))
}
