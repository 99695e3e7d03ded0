package lint

import (
	"errors"
	"fmt"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/render"
)

var ruleProjectPermission = &Rule{
	Rule: finding.Rule{
		ID:      "project-permission",
		Summary: "An object is not permitted by the AppProject of the Argo CD tier that deploys it: Argo CD would refuse it at sync time.",
		Remediation: "Move the object to the tier that owns it (a cluster-tier namespace's chart for cluster-scoped kinds, the namespace's own chart for its " +
			"namespaced ones), or configure the tier (argocd.securityKinds, namespaces.<ns>.tier).",
		Severity: SeverityError,
		Description: "For every object a target renders, repotool works out the Application that deploys it and that Application's AppProject, exactly as " +
			"`generate` makes them: a cluster-tier namespace's objects go to the `cluster` project; an application namespace's security kinds to " +
			"the `namespaces` project, the rest to the namespace's own project. It then asks the project what Argo CD asks it at sync time (the " +
			"same logic as Argo CD's `AppProject.IsResourcePermitted`, checked against Argo CD's own code in the test suite): is a cluster-scoped " +
			"kind whitelisted (the scope of a custom kind comes from its CRD), is the kind blacklisted, and is the namespace the object lands in " +
			"(its own `metadata.namespace`, or the target's) among the project's destinations. The finding names the tier, the Application and the " +
			"project that refuses the object, and why.",
		Bad: finding.Example{File: "namespaces/shop/templates/clusterrole.yaml", Content: `# shop is an application namespace: its project may not create
# cluster-scoped kinds
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: shop-reader
`},
		Good: finding.Example{File: "namespaces/shop/templates/role.yaml", Content: `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: shop-reader
`},
	},
	check: func(in *input, report func(Finding)) {
		checkProjectPermissions(in.clusterViews(), in.repo.Repo.ConfigFile, in.results, in.at, report)
	},
}

func checkProjectPermissions(views []*clusterView, configFile string, results []*render.Result, at *positions, report func(Finding)) {
	for _, v := range views {
		if v.plan == nil {
			report(Finding{File: configFile, Targets: targetsOf(results, v.name), Message: fmt.Sprintf("cluster %s: the Argo CD projects cannot be "+
				"worked out: %v", v.name, v.planErr)})
			continue
		}
		for _, p := range v.objs {
			if p.res.Target.App != nil {
				continue // its own Application's project, which repotool does not generate
			}
			pl, err := v.plan.Check(&p.res.Target, p.o)
			var refusal *argocd.Refusal
			if !errors.As(err, &refusal) {
				continue
			}
			where := "cluster-scoped"
			if pl.Namespace != "" {
				where = "in namespace " + pl.Namespace
			}
			report(at.objectFinding(p, fmt.Sprintf("%s %s (%s) is deployed by %s, and AppProject %s %s: Argo CD would refuse to sync it; %s",
				p.o.Kind, secretName(p.o.Namespace, p.o.Name), where, pl, refusal.Project, refusal.Reason, pl.TierHint(p.o.Kind))))
		}
	}
}
