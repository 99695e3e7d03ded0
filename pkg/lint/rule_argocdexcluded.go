package lint

import (
	"fmt"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
)

var ruleArgoCDExcluded = &Rule{
	Rule: finding.Rule{
		ID:      "argocd-excluded",
		Summary: "A target renders an object of a kind Argo CD's resource exclusions leave out: Argo CD will not apply it.",
		Remediation: "Let the cluster make the object (a Service selector makes its Endpoints, cert-manager its CertificateRequests), deploy it another way, " +
			"or, when your argocd-cm does not exclude the kind, say so in repotool.yaml (argocd.resourceExclusions mirrors argocd-cm's " +
			"resource.exclusions).",
		Severity: SeverityWarning,
		Description: "Since Argo CD 3.0, the argocd-cm it installs excludes Endpoints, EndpointSlice, Lease, the authentication and authorization review " +
			"kinds, CertificateSigningRequest, cert-manager's CertificateRequest, Cilium's identities and endpoints, and Kyverno's reports and " +
			"UpdateRequest; its code always excludes Event, Lease and the events.k8s.io and metrics.k8s.io groups. Argo CD drops a rendered object " +
			"of such a kind from the desired state with only an ExcludedResourceWarning condition on the Application: it is never applied, and " +
			"never pruned. A hand-written Endpoints for a Service without a selector (an external database) is the common case. repotool checks " +
			"every rendered object against the exclusions of repotool.yaml's argocd.resourceExclusions (the same shape as argocd-cm's " +
			"resource.exclusions: apiGroups and clusters as globs, kinds exact or \"*\"; clusters matched against the cluster's destination " +
			"server, or its name), or Argo CD 3's defaults when it is not set. Excluded objects are not counted as deployed by the other rules " +
			"(duplicate-object, project-permission, the Secret rules).",
		Bad: finding.Example{File: "namespaces/shop/templates/external-db.yaml", Content: `apiVersion: v1
kind: Service
metadata:
  name: external-db
spec:
  ports: [{port: 5432}]
---
apiVersion: v1
kind: Endpoints   # Argo CD 3 leaves it out: the Service gets no endpoints
metadata:
  name: external-db
subsets:
  - addresses: [{ip: 10.0.0.12}]
    ports: [{port: 5432}]
`},
		Good: finding.Example{File: "namespaces/shop/templates/external-db.yaml", Content: `apiVersion: v1
kind: Service
metadata:
  name: external-db
spec:
  type: ExternalName
  externalName: db.internal.example.com
`},
	},
	check: func(in *input, report func(Finding)) {
		checkArgoCDExcluded(in.clusterViews(), in.repo.Repo, in.at, report)
	},
}

func checkArgoCDExcluded(views []*clusterView, repo *layout.Repo, at *positions, report func(Finding)) {
	for _, v := range views {
		for _, x := range v.excluded {
			source, lifted := "argocd.resourceExclusions in "+repo.ConfigFile, ""
			switch {
			case x.why.Core:
				source, lifted = "Argo CD's built-in exclusions", ", whatever argocd-cm says"
			case repo.Config.ArgoCD.ResourceExclusions == nil:
				source = "the resource.exclusions of the argocd-cm Argo CD installs since 3.0"
			}
			group := x.o.Group()
			if group == "" {
				group = "core"
			}
			report(at.objectFinding(x.placed, fmt.Sprintf("Argo CD will not apply %s %s in cluster %s: %s leave out kind %s of API group %s%s (Argo CD drops it "+
				"with only an ExcludedResourceWarning)",
				x.o.Kind, secretName(x.ns, x.o.Name), v.name, source, x.o.Kind, group, lifted)))
		}
	}
}
