package lint

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/finding"
)

var ruleCustomCheck = &Rule{
	Rule: finding.Rule{
		ID:          "custom-check",
		Summary:     "An object fails one of the CEL checks repotool.yaml defines in lint.checks.",
		Remediation: "Change the object (the value the finding points at) so that the check's expression is true for it, or change the check.",
		Severity:    SeverityError,
		Description: "`lint.checks` in repotool.yaml lists checks written in CEL, without writing an admission policy: `{id, match: {apiVersion, " +
			"kind}, expression, message, severity}`. The expression sees `object`, the object (as the API server would show it to a policy), " +
			"and `objects`, every object the repository deploys to the same cluster, for checks across objects; it is true when the object " +
			"passes. Checks are compiled in the environment of ValidatingAdmissionPolicy expressions, with Kubernetes' CEL libraries " +
			"(quantity, regex, URL, lists, format, IP and CIDR, semver). Each evaluation is held to Kubernetes' per-call cost limit, and all " +
			"of a cluster's checks, with its admission policies, to one budget for the whole run (twice what Kubernetes allows one policy " +
			"binding's evaluation of one object), so that more checks do not make a run longer: the check that spends what is left of it, " +
			"iterating the cluster's objects within an iteration over them for one, is stopped with an error at its line in repotool.yaml that " +
			"names the costliest spenders, and the checks after it do not run on that cluster. A failing object is reported with the " +
			"check's id and message and its severity (error unless given), at the " +
			"object's template; a check that does not compile, or that cannot be evaluated for an object, is an error at repotool.yaml, " +
			"which shows the evaluation's error only when it read no secret data (the object carries none and, for a check that reads " +
			"`objects`, the cluster's renderings decrypted none; docs/security.md). " +
			"Findings take part in suppressions, the baseline and SARIF like any other. Examples, " +
			"each an entry of `lint.checks`:\n\n" +
			"```yaml\n" +
			"- id: no-latest\n  match: {apiVersion: apps/v1, kind: Deployment}\n  expression: \"object.spec.template.spec.containers.all(c, " +
			"!c.image.endsWith(':latest'))\"\n  message: images must be pinned\n" +
			"- id: memory-limit\n  match: {apiVersion: apps/v1, kind: Deployment}\n  expression: \"object.spec.template.spec.containers.all(c, " +
			"has(c.resources.limits) && 'memory' in c.resources.limits && quantity(c.resources.limits.memory).compareTo(quantity('4Gi')) <= " +
			"0)\"\n  message: every container needs a memory limit of at most 4Gi\n" +
			"- id: owner-label\n  expression: \"has(object.metadata.labels) && 'team' in object.metadata.labels\"\n  message: every object needs a team label\n " +
			" severity: warning\n" +
			"- id: service-has-pods\n  match: {apiVersion: v1, kind: Service}\n  expression: \"!has(object.spec.selector) || objects.exists(o, o.kind == " +
			"'Deployment' && o.metadata.namespace == object.metadata.namespace && object.spec.selector.all(k, " +
			"has(o.spec.template.metadata.labels) && k in o.spec.template.metadata.labels && o.spec.template.metadata.labels[k] == " +
			"object.spec.selector[k]))\"\n  message: the Service selects no Deployment's pods\n" +
			"- id: https-ingress\n  match: {apiVersion: networking.k8s.io/v1, kind: Ingress}\n  expression: \"has(object.spec.tls) && size(object.spec.tls) > " +
			"0\"\n  message: every Ingress needs TLS\n" +
			"```\n\nObjects without a namespace get their target's before the checks see them.",
		Bad: finding.Example{File: "repotool.yaml", Content: `lint:
  checks:
    - id: replicas
      expression: "object.spec.replicas >"   # does not compile
      message: too many replicas
`},
		Good: finding.Example{File: "repotool.yaml", Content: `lint:
  checks:
    - id: replicas
      match: {apiVersion: apps/v1, kind: Deployment}
      expression: "object.spec.replicas <= 20"
      message: at most 20 replicas
`},
	},
	check: func(in *input, report func(Finding)) {
		checkCustom(in.runContext(), in.repo.Repo.Config.Lint.Checks, in.celBudget, in.clusterViews(), in.at, report)
	},
}

func checkCustom(ctx context.Context, checks []config.Check, budget int64, views []*clusterView, at *positions, report func(Finding)) {
	if len(checks) == 0 {
		return
	}
	compiled := make([]*admission.Check, len(checks))
	for i, c := range checks {
		var err error
		if compiled[i], err = admission.CompileCheck(c.Expression); err != nil {
			report(Finding{File: config.FileName, Line: c.ExpressionLine, Message: fmt.Sprintf("lint.checks %s: the expression %v; correct it", c.ID, err)})
		}
	}
	for _, v := range views {
		// Each object is decoded as the API server decodes it once, for
		// objects and for every check run on it.
		contents := make([]map[string]any, len(v.objs))
		for i, p := range v.objs {
			contents[i] = admission.Normalize(withNamespace(contentOf(p.o), p.ns))
		}
		objects := admission.NewObjects(contents)
		b := v.celBudget(budget) // the cluster's, shared with its admission policies
		for i, c := range checks {
			if compiled[i] == nil || b.Exceeded() {
				continue
			}
			before := b.Spent()
			runCheck(admission.WithBudget(ctx, b), c, compiled[i], v, contents, objects, at, report)
			v.celSpent("lint.checks "+c.ID, b.Spent()-before)
			if b.Exceeded() {
				report(Finding{File: config.FileName, Line: c.ExpressionLine, Severity: SeverityError, Message: fmt.Sprintf("lint.checks %s %s "+
					"(%d cost units, which the cluster's admission policies and lint.checks share) in cluster %s, and was stopped: the "+
					"cluster's remaining objects are not checked by it or the checks after it; the costliest were %s; make the "+
					"expressions cheaper (no nested iteration over objects)", c.ID, admission.ErrBudget, budget, v.name, v.costliest())})
			}
		}
	}
}

// runCheck runs the check c on the objects of the cluster v it
// matches, until the context's budget is spent.
func runCheck(ctx context.Context, c config.Check, compiled *admission.Check, v *clusterView, contents []map[string]any, objects admission.Objects,
	at *positions, report func(Finding)) {
	failed := false
	for j, p := range v.objs {
		if !c.Match.Matches(p.o.APIVersion, p.o.Kind) {
			continue
		}
		ok, err := compiled.Eval(ctx, contents[j], objects)
		switch {
		case errors.Is(err, admission.ErrBudget):
			return
		case err != nil && !failed:
			failed = true
			report(Finding{File: config.FileName, Line: c.ExpressionLine, Message: fmt.Sprintf("lint.checks %s %s for %s in cluster %s; make the expression "+
				"handle such objects (has(), optional fields)", c.ID, checkError(c, v, &v.objs[j], err), p.o.ID(), v.name)})
		case err == nil && !ok:
			report(Finding{File: p.o.Source.String(), Line: at.objectPosition(p.o), Object: p.o.ID(), Targets: []string{p.res.Target.Name()},
				Message: fmt.Sprintf("%s: %s (%s in cluster %s)", c.ID, c.Message, p.o.ID(), v.name), Key: c.ID, Severity: Severity(c.Severity)})
		}
	}
}

// checkError is what a finding may show of the error evaluating check c
// for p in the cluster v: never its text when the evaluation read secret
// data (p carries secret values, or the check may read objects in a
// cluster whose renderings decrypted any), as a value can reach the text
// in any form (upperAscii, substring, split, replace), nor when the
// cluster's guard finds a value in it.
func checkError(c config.Check, v *clusterView, p *placed, err error) string {
	if objectCarriesSecrets(p, nil) || strings.Contains(c.Expression, "objects") && !v.guard().Empty() {
		return "cannot be evaluated (the error is withheld: the expression read secret data)"
	}
	return withoutSecrets(v.guard(), err.Error(), "cannot be evaluated (the error is withheld: it quotes a secret value)", &admissionRef{p: p})
}
