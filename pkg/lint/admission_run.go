package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/admission"
)

// admissions runs the admission check once per run.
func (in *input) admissions() *admissionOutcome {
	if in.admission == nil {
		ac := &admissionCheck{ctx: in.runContext(), repo: in.repo, results: in.results, at: in.at, budget: in.celBudget,
			run: cmp.Or(in.admissionRun, newAdmissionRun())}
		out := &admissionOutcome{}
		for _, v := range in.clusterViews() {
			ac.checkCluster(v, func(f Finding) { out.policy = append(out.policy, f) }, func(f Finding) { out.drift = append(out.drift, f) })
		}
		in.admission = out
	}
	return in.admission
}

// checkCluster puts a cluster's objects to its policies. Nothing
// is read of a cluster without any: the policies and bindings are told by
// their kinds, the params by the policies' paramKinds, and the objects no
// policy's rules name are not decoded.
func (ac *admissionCheck) checkCluster(v *clusterView, report, drift func(Finding)) {
	a := ac.run
	ac.guard = v.guard()
	policies, bindings, params, rest := ac.admissionInputs(v, ac.alsoProblem(report))
	if len(bindings) == 0 && len(policies) == 0 {
		return
	}
	params = append(params, a.params(policies, rest)...)
	namespaces := ac.admissionNamespaces(v)
	env := clusterEnv(policies, bindings, params)
	cluster := &admission.Cluster{Namespaces: namespaces, Objects: params}
	set, problems := admission.New(policies, bindings, cluster, admission.Options{
		KubeVersion: ac.repo.Repo.Config.ClusterKubeVersion(v.name), Resource: ac.resourceOf(v), Compiler: a.compiler,
		FeatureGates: ac.repo.Repo.Config.ClusterFeatureGates(v.name),
	})
	for _, pr := range problems {
		if pr.Missing && !v.complete {
			continue // the policy may be in a target this run does not render
		}
		f := ac.admissionFinding(pr.Ref.(*admissionRef), pr.Field)
		f.Message = withoutSecrets(nil, fmt.Sprintf("%s (cluster %s); %s", pr.Message, v.name, pr.Fix), // words of the object's own
			fmt.Sprintf("the problem's description is withheld: it quotes the object, which holds a secret value (cluster %s); "+
				"correct the object at this line", v.name), pr.Ref.(*admissionRef))
		if pr.Limit {
			f.Severity = SeverityInfo
		} else if ac.problem != nil && !pr.Validating {
			ac.problem(f)
		}
		report(f)
	}
	if !set.Bound() {
		return
	}
	missing := ac.admit(v, set, admittedScope{env: env, namespaces: namespaces, refs: policyRefs(policies, bindings)}, rest, report, drift)
	for b, objs := range missing {
		f := ac.admissionFinding(b, "/spec/paramRef")
		what := "the object it matches"
		if len(objs) > 1 {
			what = fmt.Sprintf("all %d objects it matches", len(objs))
		}
		f.Message = fmt.Sprintf("ValidatingAdmissionPolicyBinding %s: its paramRef selects no object in cluster %s "+
			"and its parameterNotFoundAction is Deny, so the API server would deny %s (%s); deploy the param to the cluster "+
			"(or name its file in clusters.%s.admissionPolicies), correct paramRef, or use parameterNotFoundAction: Allow",
			nameOf(b), v.name, what, firstAnd(objs), v.name)
		report(f)
	}
}

// admissionInputs are the cluster's policies, bindings and params (from
// its renderings and the files repotool.yaml names), and the rest of its
// objects.
func (ac *admissionCheck) admissionInputs(v *clusterView, report func(Finding)) (policies, bindings, params []admission.Input, rest []*placed) {
	for i := range v.objs {
		p := &v.objs[i]
		switch {
		case isAdmissionPolicy(p.o.APIVersion, p.o.Kind):
			policies = append(policies, admission.Input{Content: withNamespace(contentOf(p.o), p.ns), Ref: &admissionRef{p: p}})
		case isAdmissionBinding(p.o.APIVersion, p.o.Kind):
			bindings = append(bindings, admission.Input{Content: withNamespace(contentOf(p.o), p.ns), Ref: &admissionRef{p: p}})
		default:
			rest = append(rest, p)
		}
	}
	for _, f := range ac.admissionFiles(v.name, report) {
		api, _ := f.content["apiVersion"].(string)
		kind, _ := f.content["kind"].(string)
		switch i := (admission.Input{Content: f.content, Ref: f.ref}); {
		case isAdmissionPolicy(api, kind):
			policies = append(policies, i)
		case isAdmissionBinding(api, kind):
			bindings = append(bindings, i)
		default:
			params = append(params, i)
		}
	}
	return policies, bindings, params, rest
}

// alsoProblem is report, telling ac.problem too when it is set.
func (ac *admissionCheck) alsoProblem(report func(Finding)) func(Finding) {
	if ac.problem == nil {
		return report
	}
	return func(f Finding) {
		ac.problem(f)
		report(f)
	}
}

// isAdmissionPolicy and isAdmissionBinding tell a validating or mutating
// policy, and a binding of one.
func isAdmissionPolicy(apiVersion, kind string) bool {
	return admission.IsPolicy(apiVersion, kind) || admission.IsMutatingPolicy(apiVersion, kind)
}

func isAdmissionBinding(apiVersion, kind string) bool {
	return admission.IsBinding(apiVersion, kind) || admission.IsMutatingBinding(apiVersion, kind)
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
