package lint

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/render"
)

var ruleAdmissionPolicy = &Rule{
	Rule: finding.Rule{
		ID: "admission-policy",
		Summary: "An object the repository deploys would be denied (or warned about, or audited) by an admission policy of its cluster, or a " +
			"policy or binding the cluster would refuse.",
		Remediation: "Change the value the finding points at so that the object passes the policy, or change the policy; for a policy, binding or param " +
			"problem, follow the finding's fix.",
		Severity: SeverityError,
		Description: "For each cluster, repotool collects the ValidatingAdmissionPolicies and bindings (admissionregistration.k8s.io/v1) that the repository " +
			"deploys to it, from the renderings of every tier, and those repotool.yaml names in `clusters.<cluster>.admissionPolicies` (files or " +
			"folders, for policies deployed some other way, with their params). It then puts every object the repository deploys to the cluster to " +
			"them as the API server puts a CREATE by Argo CD's application controller, with Kubernetes' own code (k8s.io/apiserver): the CEL " +
			"environment and cost limits, matchConstraints (rules with wildcards, excludeResourceRules, matchPolicy, namespaceSelector, " +
			"objectSelector), the binding's matchResources, paramKind and paramRef (params among the cluster's objects), matchConditions, " +
			"variables, validations with message, messageExpression and reason, and failurePolicy. The policies of a cluster share a CEL " +
			"cost budget for the run with its lint.checks (twice Kubernetes' per-evaluation budget, on top of it): policies that spend it are an error at the policy " +
			"that was running, and the cluster's remaining objects are not checked, whatever the failurePolicy. The cluster's " +
			"MutatingAdmissionPolicies (from Kubernetes 1.36, or 1.32 to 1.35 with `clusters.<cluster>.featureGates: {MutatingAdmissionPolicy: " +
			"true}`) run first, as the API server runs them (JSON patches and apply configurations, match conditions, params, reinvocationPolicy " +
			"IfNeeded, failurePolicy; in name order, where the API server's is not defined), and the validating policies see the object as " +
			"admitted: a validation that fails on a field a mutating policy set is placed at that policy. A mutation that fails under " +
			"failurePolicy Fail, or makes an object the API server cannot decode, denies the object. Namespace selectors see the labels of the " +
			"Namespace objects the repository deploys, the label the API server sets on every namespace, the labels repotool's own Namespace " +
			"objects carry, and `namespaces.<ns>.labels` of repotool.yaml. A binding's Deny is an error, Warn a warning, Audit an info. The " +
			"finding is placed at the values file line that set the field the failing expression reads when it can be traced, else at the " +
			"template. When the evaluation read secret data (the object carries secret values, a mutation of it read a param or policy " +
			"that does, or the param or policy does), a messageExpression's output and an evaluation error are not shown (they could quote a " +
			"value in any form): the validation's message is (docs/security.md). A policy whose expression does not compile for the " +
			"cluster's Kubernetes version, a binding of a policy the " +
			"cluster does not have, a paramRef that selects nothing under parameterNotFoundAction Deny, and a policy or binding that cannot be " +
			"read are reported at that object. Objects are evaluated as the API server decodes them, with its defaults for the fields policies " +
			"read most (a workload's replicas, the pod's restartPolicy, dnsPolicy, schedulerName and grace period, a container's imagePullPolicy, " +
			"termination message and port protocols, a Service's type and port protocols); its other defaults are not applied, so an expression " +
			"that reads another field a chart leaves out should test it with has().",
		Bad: finding.Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `replicas: 40   # the cluster's replica-limit policy allows 20
`},
		Good: finding.Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `replicas: 12
`},
	},
	check: func(in *input, report func(Finding)) {
		for _, f := range in.admitted().policy {
			report(f)
		}
	},
}

// admissionOutcome is what putting every cluster's objects to its
// admission policies found, once per run: the admission-policy rule's
// findings and the admission-drift rule's.
type admissionOutcome struct {
	policy, drift []Finding
}

// admitted runs the admission check once per run.
func (in *input) admitted() *admissionOutcome {
	if in.admission == nil {
		ac := &admissionCheck{ctx: in.ctx(), repo: in.repo, results: in.results, at: in.at, budget: in.celBudget, run: cmp.Or(in.admissionRun, newAdmissionRun())}
		out := &admissionOutcome{}
		for _, v := range in.clusterViews() {
			ac.checkCluster(v, func(f Finding) { out.policy = append(out.policy, f) }, func(f Finding) { out.drift = append(out.drift, f) })
		}
		in.admission = out
	}
	return in.admission
}

// admissionRef is where a policy, binding or param is: a rendered object,
// or a document of a file repotool.yaml names. content is the object as
// evaluated.
type admissionRef struct {
	p          *placed
	file       string
	node       *yaml.Node
	id, source string
	content    map[string]any
	// mutations are what the cluster's mutating policies changed in the
	// object: content is then the admitted object.
	mutations []admission.Mutation
}

// admissionCheck is what the admission rule reads: the repository (its
// configuration, the files it names, its CRDs), the renderings, where
// things are, and the run's CEL budget; run is what the clusters share.
type admissionCheck struct {
	ctx     context.Context
	repo    *repoFacts
	results []*render.Result
	at      *positions
	budget  int64
	run     *admissionRun
	// guard is the cluster's being checked (clusterView.guard).
	guard *render.Guard
	// admitted, when set, is told each object's admission (see Admit),
	// and problem each finding that a policy, binding or file cannot be
	// applied.
	admitted   func(p *placed, a admission.Admitted)
	problem    func(Finding)
	driftEntry func(cluster string, place argocd.Placement, p *placed, fields []string)
}

func newAdmissionRun() *admissionRun {
	return &admissionRun{compiler: admission.NewCompiler(), contents: map[[sha256.Size]byte]map[string]any{}, admitted: map[[sha256.Size]byte]*admittedFacts{}}
}

// admissionRun is what the clusters of a run share: the compiled policies
// and the objects as evaluated, decoded once however many clusters deploy
// the same bytes to the same namespace (a chart's objects mostly are).
type admissionRun struct {
	compiler *admission.Compiler
	contents map[[sha256.Size]byte]map[string]any
	// admitted are the objects admitted without a decision under a
	// cluster's policies, bindings, params and namespace labels
	// (admittedKey), with what the mutating policies did to them: the
	// same object under the same ones in another cluster is admitted the
	// same way.
	admitted map[[sha256.Size]byte]*admittedFacts
}

// admittedKey identifies an object's evaluation: its bytes and namespace,
// and everything of its cluster the decision depends on (the policies,
// bindings and params, given as env, and its namespace's labels).
func admittedKey(p *placed, text, env []byte, labels map[string]string) [sha256.Size]byte {
	h := sha256.New()
	h.Write(env)
	h.Write([]byte{0})
	h.Write(text)
	h.Write([]byte{0})
	h.Write([]byte(p.ns))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		h.Write([]byte{0})
		h.Write([]byte(k + "=" + labels[k]))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// clusterEnv is what of a cluster its objects' decisions depend on besides
// their namespace's labels, as bytes for admittedKey.
func clusterEnv(policies, bindings, params []admission.Input) []byte {
	var b []byte
	for _, list := range [][]admission.Input{policies, bindings, params} {
		for _, i := range list {
			data, _ := json.Marshal(i.Content) // maps marshal in key order
			b = append(append(b, data...), 0)
		}
		b = append(b, 1)
	}
	return b
}

// maxSharedContents bounds the objects admissionRun keeps: past it, they
// are decoded again rather than held.
const maxSharedContents = 20000

// content returns a rendered object as the API server would evaluate it
// (admission.NormalizeJSON), in the namespace it lands in, from its text
// (textOf); nil when that cannot be read as JSON (it parsed when
// rendered: not reached).
func (a *admissionRun) content(p *placed, text []byte) map[string]any {
	key := sha256.Sum256(append(append(slices.Clone(text), 0), p.ns...))
	if c, ok := a.contents[key]; ok {
		return c
	}
	data, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil
	}
	c, err := admission.NormalizeJSON(data)
	if err != nil {
		return nil
	}
	c = withNamespace(c, p.ns)
	if len(a.contents) >= maxSharedContents {
		clear(a.contents)
	}
	a.contents[key] = c
	return c
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

// params are the rendered objects of a kind some policy takes its params
// from.
func (a *admissionRun) params(policies []admission.Input, rest []*placed) []admission.Input {
	paramKinds := map[string]bool{}
	for _, p := range policies {
		spec, _ := p.Content["spec"].(map[string]any)
		if pk, ok := spec["paramKind"].(map[string]any); ok {
			paramKinds[fmt.Sprint(pk["apiVersion"], "/", pk["kind"])] = true
		}
	}
	var params []admission.Input
	for _, p := range rest {
		if paramKinds[p.o.APIVersion+"/"+p.o.Kind] {
			if c := a.content(p, textOf(p.o)); c != nil {
				params = append(params, admission.Input{Content: c, Ref: &admissionRef{p: p, content: c}, Normalized: true})
			}
		}
	}
	return params
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

// budgetFinding is the error of a cluster whose admission policies spent
// the run's CEL budget, at the policy that was running.
func (ac *admissionCheck) budgetFinding(cluster string, p *placed, d admission.Decision) Finding {
	kind, field := "ValidatingAdmissionPolicy", "/spec/validations"
	if d.Mutating {
		kind, field = admission.KindMutatingPolicy, "/spec/mutations"
	}
	f := ac.admissionFinding(d.PolicyRef.(*admissionRef), field)
	f.Severity = SeverityError
	f.Message = fmt.Sprintf("the cluster's admission policies %s (%d cost units) while %s %s ran on %s in cluster %s: the cluster's "+
		"remaining objects were not checked; make the policies cheaper (fewer or smaller params, no nested iteration over large lists)",
		admission.ErrBudget, ac.budget, kind, d.Policy, p.o.ID(), cluster)
	return f
}
