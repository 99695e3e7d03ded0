package lint

import (
	"github.com/repotool/repotool/pkg/finding"
)

var ruleAdmissionDrift = &Rule{
	Rule: finding.Rule{
		ID: "admission-drift",
		Summary: "A MutatingAdmissionPolicy of the cluster changes a field of an object that Argo CD compares, and the Application's ignoreDifferences " +
			"does not cover it: the Application never stays in sync.",
		Remediation: "Set the value the policy sets in the chart's values, add the entry the finding gives to the namespace's ignoreDifferences in " +
			"repotool.yaml, or compare with Argo CD's server-side diff (argocd.serverSideDiff).",
		Severity: SeverityWarning,
		Description: "For each cluster, repotool applies the MutatingAdmissionPolicies and bindings the cluster has (from the renderings of every " +
			"tier and `clusters.<cluster>.admissionPolicies`; from Kubernetes 1.36, or 1.32 to 1.35 with `clusters.<cluster>.featureGates: " +
			"{MutatingAdmissionPolicy: true}`) to every object the repository deploys there, as the admission-policy rule describes, and " +
			"compares the admitted object with the rendered one. Argo CD's default (three-way) diff keeps a field the cluster adds where the " +
			"manifest has none, as it keeps the API server's defaults; it shows as drift a value the manifest sets that the cluster changed or " +
			"removed, and, for a custom resource (whose lists Argo CD replaces whole), any change inside a list the manifest sets. Such a field " +
			"keeps the Application OutOfSync, and with self-heal Argo CD applies the manifest again, the policy changes it again, in a loop. " +
			"The finding names the Application, the object, the JSON pointers and the policy, and gives the ignoreDifferences entry that covers " +
			"them. An Application's ignoreDifferences (argocd.ignoreDifferences and namespaces.<ns>.ignoreDifferences) covers a field by " +
			"jsonPointers, or by jqPathExpressions written as a plain path (.spec.template.spec.containers[0].image, [] for any item); " +
			"managedFieldsManagers does not cover it (the API server records no manager for a policy's change). With argocd.serverSideDiff, " +
			"Argo CD asks the API server for the admitted object and the rule has nothing to say; with argocd.admissionIgnoreDifferences, " +
			"`repotool generate` writes the entries into the Applications (and `generate --check` keeps them current), and the rule has " +
			"nothing to say either.",
		Bad: finding.Example{File: "repotool.yaml", Content: `# the cluster's registry policy rewrites every container image to registry.corp/...
namespaces:
  shop: {}
`},
		Good: finding.Example{File: "repotool.yaml", Content: `namespaces:
  shop:
    ignoreDifferences:
      - {group: apps, kind: Deployment, jsonPointers: [/spec/template/spec/containers/0/image]}
`},
	},
	check: func(in *input, report func(Finding)) {
		for _, f := range in.admissions().drift {
			report(f)
		}
	},
}
