package lint

import (
	"fmt"

	"github.com/repotool/repotool/pkg/finding"
)

var ruleSecretStoreReference = &Rule{
	Rule: finding.Rule{
		ID:      "secret-store-reference",
		Summary: "An ExternalSecret, ClusterExternalSecret or PushSecret refers to a SecretStore or ClusterSecretStore the cluster does not define.",
		Remediation: "Add the store to the cluster's charts (or repository manifests), fix the name or kind in secretStoreRef, or declare a store made " +
			"outside Git in repotool.yaml (clusters.<name>.provided: [\"ClusterSecretStore vault\"]).",
		Severity: SeverityError,
		Description: "External Secrets Operator only syncs an ExternalSecret whose store exists: a SecretStore in the ExternalSecret's own namespace, or a " +
			"ClusterSecretStore. repotool checks every store reference (spec.secretStoreRef, and the storeRef of each data and dataFrom entry; a " +
			"ClusterExternalSecret's references in each namespace it selects; a PushSecret's secretStoreRefs) against the stores the cluster's " +
			"targets render, the stores in the repository's plain manifests, and those repotool.yaml declares as provided outside Git. It runs for " +
			"a cluster only when every one of its targets rendered, so that a store is never reported missing because the target that makes it " +
			"failed.",
		Bad: finding.Example{File: "namespaces/shop/templates/externalsecret.yaml", Content: `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  secretStoreRef: {name: vualt, kind: ClusterSecretStore}   # misspelled
  target: {name: shop-db}
`},
		Good: finding.Example{File: "namespaces/shop/templates/externalsecret.yaml", Content: `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: shop-db}
`},
	},
	check: func(in *input, report func(Finding)) {
		checkSecretStoreReferences(in.clusterViews(), in.repo.Raw, in.at, report)
	},
}

// storeRef is a reference to a store: kind SecretStore (in namespace ns)
// or ClusterSecretStore.
type storeRef struct{ kind, ns, name string }

func checkSecretStoreReferences(views []*clusterView, raw []rawObject, at *positions, report func(Finding)) {
	for _, v := range views {
		if !v.complete {
			continue
		}
		stores := map[storeRef]bool{}
		for _, p := range v.objs {
			switch {
			case isKind(p.o, groupESO, "SecretStore"):
				stores[storeRef{"SecretStore", p.ns, p.o.Name}] = true
			case isKind(p.o, groupESO, "ClusterSecretStore"):
				stores[storeRef{"ClusterSecretStore", "", p.o.Name}] = true
			}
		}
		for _, r := range raw {
			switch {
			case isKind(&r.Object, groupESO, "SecretStore"):
				stores[storeRef{"SecretStore", r.Namespace, r.Name}] = true
			case isKind(&r.Object, groupESO, "ClusterSecretStore"):
				stores[storeRef{"ClusterSecretStore", "", r.Name}] = true
			}
		}
		have := func(ref storeRef) bool { return stores[ref] || v.isProvided(ref.kind, ref.ns, ref.name) }
		for _, p := range v.objs {
			for _, ref := range v.storeRefs(p) {
				if have(ref) {
					continue
				}
				where := "cluster " + v.name
				if ref.kind == "SecretStore" {
					where = "namespace " + ref.ns + " of cluster " + v.name
				}
				f := at.objectFinding(p, fmt.Sprintf("%s %s refers to %s %s, which %s does not have", p.o.Kind, secretName(p.ns, p.o.Name), ref.kind, ref.name, where))
				if line := at.objectLine(p.o, "name: "+ref.name); line > 0 {
					f.Line = line // the reference itself
				}
				report(f)
			}
		}
	}
}

// storeRefs are the stores an object refers to, each once, in order.
func (v *clusterView) storeRefs(p placed) []storeRef {
	var out []storeRef
	seen := map[storeRef]bool{}
	add := func(ref map[string]any, namespaces []string) {
		name, kind := strAt(ref, "name"), strAt(ref, "kind")
		if name == "" {
			return // a label selector, or a generator: nothing to look up
		}
		if kind == "" {
			kind = "SecretStore"
		}
		if kind != "SecretStore" && kind != "ClusterSecretStore" {
			return
		}
		for _, ns := range namespaces {
			r := storeRef{kind, ns, name}
			if kind == "ClusterSecretStore" {
				r.ns = ""
			}
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	esRefs := func(spec map[string]any, namespaces []string) {
		add(mapAt(spec, "secretStoreRef"), namespaces)
		for _, key := range []string{"data", "dataFrom"} {
			for _, x := range listAt(spec, key) {
				if e, ok := x.(map[string]any); ok {
					if sr := mapAt(e, "sourceRef", "storeRef"); sr != nil {
						add(sr, namespaces)
					}
				}
			}
		}
	}
	o := p.o
	switch {
	case isKind(o, groupESO, "ExternalSecret"):
		esRefs(mapAt(contentOf(o), "spec"), []string{p.ns})
	case isKind(o, groupESO, "ClusterExternalSecret"):
		esRefs(mapAt(contentOf(o), "spec", "externalSecretSpec"), v.cesNamespaces(contentOf(o)))
	case isKind(o, groupESO, "PushSecret"):
		for _, x := range listAt(contentOf(o), "spec", "secretStoreRefs") {
			if ref, ok := x.(map[string]any); ok {
				add(ref, []string{p.ns})
			}
		}
	}
	return out
}
