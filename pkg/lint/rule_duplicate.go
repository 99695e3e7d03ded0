package lint

import (
	"fmt"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
)

var ruleDuplicateObject = &Rule{
	Rule: finding.Rule{
		ID:          "duplicate-object",
		Summary:     "The same object (group, kind, namespace, name) is rendered twice in one cluster: by two targets, or by two tiers.",
		Remediation: "Render the object from one chart only: remove it from the other, or give one of them another name.",
		Severity:    SeverityError,
		Description: "Argo CD tracks each live object as owned by one Application. When two Applications (two targets of a cluster, or two tiers) render the " +
			"same group, kind, namespace and name, it reports the object as a shared resource and the two fight over it: each sync overwrites the " +
			"other's version, and pruning one deletes the other's. The check runs per cluster over every target's rendered objects; an object's " +
			"namespace is where it lands (its own, or its target's). The finding is at the second object, with the first as a related location.",
		Bad: finding.Example{File: "namespaces/platform/templates/rbac.yaml", Content: `# namespaces/shop/templates/rbac.yaml renders the same ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
`},
		Good: finding.Example{File: "namespaces/platform/templates/rbac.yaml", Content: `# one chart owns it; the other chart uses it
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
`},
	},
	check: func(in *input, report func(Finding)) { checkDuplicateObjects(in.clusterViews(), in.at, report) },
}

func checkDuplicateObjects(views []*clusterView, at *positions, report func(Finding)) {
	for _, v := range views {
		first := map[manifest.Key]placed{}
		for _, p := range v.objs {
			key := manifest.Key{Group: p.o.Group(), Kind: p.o.Kind, Namespace: p.ns, Name: p.o.Name}
			prev, seen := first[key]
			if !seen {
				first[key] = p
				continue
			}
			where := "twice by " + p.res.Target.Name()
			if prev.res != p.res {
				where = fmt.Sprintf("by %s and %s", prev.res.Target.Name(), p.res.Target.Name())
			}
			f := at.objectFinding(p, fmt.Sprintf("%s %s is rendered %s in cluster %s: Argo CD would see it as shared by two Applications, which overwrite (and "+
				"may prune) each other's version", p.o.Kind, secretName(p.ns, p.o.Name), where, v.name))
			f.Related = []finding.Location{at.location(prev, "the same object, rendered first")}
			report(f)
		}
	}
}
