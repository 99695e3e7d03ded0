package lint

import (
	"fmt"

	"github.com/repotool/repotool/pkg/finding"
)

var ruleSecretConflict = &Rule{
	Rule: finding.Rule{
		ID: "secret-conflict",
		Summary: "Two objects would write the same Secret in one cluster and namespace (two ExternalSecrets, an ExternalSecret and a rendered Secret, a " +
			"Certificate, a mirror or reflector copy).",
		Remediation: "Give each writer its own Secret name (spec.target.name, spec.secretName), or keep only one of them.",
		Severity:    SeverityError,
		Description: "Per cluster and namespace, repotool lists what makes each Secret: a rendered Secret; an ExternalSecret's target (spec.target.name, " +
			"else its own name; creationPolicy Owner or Orphan, not Merge, CreateOrMerge or None, which add keys to a Secret they do not own; not " +
			"a target that spec.target.manifest makes another kind, such as a ConfigMap); the ExternalSecrets a ClusterExternalSecret creates in " +
			"each namespace it selects (its namespaces and namespace selectors, resolved against the cluster's namespaces and their labels); a " +
			"cert-manager Certificate's spec.secretName; a SecretMirror's copies (mirrors.kts.studio, destination namespaces as regular " +
			"expressions); and kubernetes-reflector's automatic copies (reflection-auto-enabled). Two writers of one Secret fight: External " +
			"Secrets Operator refuses the second ExternalSecret (\"already owned by another ExternalSecret\") and the application keeps stale " +
			"credentials, or Argo CD and the operator overwrite each other. The finding is at the second writer, with the first as a related " +
			"location.",
		Bad: finding.Example{File: "namespaces/shop/templates/externalsecrets.yaml", Content: `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: shop-db}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db-migrated
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: shop-db}   # the same Secret as above
`},
		Good: finding.Example{File: "namespaces/shop/templates/externalsecrets.yaml", Content: `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: shop-db}
`},
	},
	check: func(in *input, report func(Finding)) { checkSecretConflicts(in.clusterViews(), in.at, report) },
}

func checkSecretConflicts(views []*clusterView, at *positions, report func(Finding)) {
	for _, v := range views {
		first := map[[2]string]secretWriter{}
		for _, w := range v.secretWriters() {
			if w.merges {
				continue // adds keys to whatever Secret is there
			}
			key := [2]string{w.ns, w.name}
			prev, seen := first[key]
			if !seen {
				first[key] = w
				continue
			}
			if prev.p.o == w.p.o {
				continue // one object writing a Secret twice is not a fight
			}
			f := at.objectFinding(w.p, fmt.Sprintf("Secret %s is written both by %s %s (%s) and by %s %s (%s) in cluster %s: the two would fight over it",
				secretName(w.ns, w.name), w.p.o.Kind, secretName(w.p.ns, w.p.o.Name), w.how, prev.p.o.Kind, secretName(prev.p.ns, prev.p.o.Name), prev.how, v.name))
			f.Related = []finding.Location{at.location(prev.p, "already writes Secret "+secretName(w.ns, w.name))}
			report(f)
		}
	}
}
