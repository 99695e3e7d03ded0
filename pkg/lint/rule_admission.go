package lint

import "github.com/repotool/repotool/pkg/finding"

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
		for _, f := range in.admissions().policy {
			report(f)
		}
	},
}
