package lint

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
)

var ruleSecretReference = &Rule{
	Rule: finding.Rule{
		ID:      "secret-reference",
		Summary: "A workload, Ingress or ServiceAccount refers to a Secret that nothing provides in its cluster and namespace.",
		Remediation: "Provide the Secret (an ExternalSecret, a Certificate, a rendered Secret, a mirror or reflector copy), fix the name, mark the reference " +
			"optional, or declare a Secret made outside Git in repotool.yaml (clusters.<name>.provided: [\"Secret shop/db\"]).",
		Severity: SeverityWarning,
		Description: "A Pod whose Secret is missing does not start (CreateContainerConfigError, or a volume that never mounts), and an Ingress whose TLS " +
			"Secret is missing serves the default certificate. repotool checks the references in pod templates (Pods, workloads, CronJobs, and any " +
			"custom kind with a pod template such as an Argo Rollout: env secretKeyRef, envFrom secretRef, secret and projected volumes, " +
			"imagePullSecrets), in Ingress tls.secretName (unless cert-manager's ingress annotations make the Secret) and in ServiceAccount " +
			"secrets and imagePullSecrets, against what provides Secrets in the same cluster and namespace: rendered Secrets, ExternalSecret " +
			"targets (creationPolicy Owner, Orphan or CreateOrMerge; not a target spec.target.manifest makes another kind), the ExternalSecrets of " +
			"ClusterExternalSecrets (their namespace selectors resolved against the cluster's namespaces), Certificates, SecretMirror copies, " +
			"kubernetes-reflector automatic copies, Jobs of the namespace that name the Secret in their arguments (certificate generators run as " +
			"Helm hooks, such as ingress-nginx's kube-webhook-certgen), the repository's plain manifests, and Secrets repotool.yaml declares as " +
			"provided. References marked optional are skipped. It runs for a cluster only when every one of its targets rendered.",
		Bad: finding.Example{File: "namespaces/shop/templates/deployment.yaml", Content: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: shop:1.0
          envFrom:
            - secretRef: {name: shop-db}   # nothing makes shop-db
`},
		Good: finding.Example{File: "namespaces/shop/templates/deployment.yaml", Content: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: shop:1.0
          envFrom:
            - secretRef: {name: shop-db}   # the ExternalSecret db's target
`},
	},
	check: func(in *input, report func(Finding)) {
		checkSecretReferences(in.clusterViews(), in.repo.Raw, in.objects, in.at, report)
	},
	facts: []*fact{factSecretUses, factJobWords},
}

// secretUse is a reference to a Secret.
type secretUse struct{ name, how string }

// The facts secret-reference keeps of the objects a run lets go: their
// Secret references, as name and how, pair after pair; and a Job's words.
var (
	factSecretUses = &fact{of: func(o *manifest.Object) []string {
		var out []string
		for _, u := range secretUsesOf(o) {
			out = append(out, u.name, u.how)
		}
		return out
	}}
	factJobWords = &fact{of: func(o *manifest.Object) []string {
		if !isKind(o, "batch", "Job") {
			return nil
		}
		return jobWords(contentOf(o))
	}}
)

// secretUses are o's Secret references (factSecretUses).
func secretUses(objs *objects, o *manifest.Object) []secretUse {
	words := objs.fact(o, factSecretUses)
	out := make([]secretUse, 0, len(words)/2)
	for i := 0; i+1 < len(words); i += 2 {
		out = append(out, secretUse{words[i], words[i+1]})
	}
	return out
}

func checkSecretReferences(views []*clusterView, raw []rawObject, objs *objects, at *positions, report func(Finding)) {
	for _, v := range views {
		if !v.complete {
			continue
		}
		have := map[[2]string]bool{}
		for _, w := range v.secretWriters() {
			have[[2]string{w.ns, w.name}] = true
		}
		for _, p := range v.objs {
			if p.o.IsSecret() {
				have[[2]string{p.ns, p.o.Name}] = true // reflection targets too
			}
		}
		for _, r := range raw {
			if r.IsSecret() {
				have[[2]string{r.Namespace, r.Name}] = true
			}
		}
		jobArgs := map[[2]string]bool{} // words in the arguments of the namespace's Jobs
		for _, p := range v.objs {
			if p.o.Kind == "Job" && p.o.Group() == "batch" {
				for _, w := range objs.fact(p.o, factJobWords) {
					jobArgs[[2]string{p.ns, w}] = true
				}
			}
		}
		for _, p := range v.objs {
			if p.ns == "" {
				continue
			}
			for _, use := range secretUses(objs, p.o) {
				key := [2]string{p.ns, use.name}
				if have[key] || jobArgs[key] || v.isProvided("Secret", p.ns, use.name) {
					continue
				}
				f := at.objectFinding(
					p,
					fmt.Sprintf(
						"%s %s refers to Secret %s (%s), but nothing in cluster %s provides it",
						p.o.Kind,
						secretName(p.ns, p.o.Name),
						secretName(p.ns, use.name),
						use.how,
						v.name,
					),
				)
				if line := at.objectLine(p.o, use.name); line > 0 {
					f.Line = line // the reference itself
				}
				report(f)
			}
		}
	}
}

// secretUsesOf are the non-optional Secret references of an object, each
// once, in order.
func secretUsesOf(o *manifest.Object) []secretUse {
	var out []secretUse
	seen := map[string]bool{}
	add := func(name, how string, optional bool) {
		if name == "" || optional || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, secretUse{name, how})
	}
	c := contentOf(o)
	switch {
	case o.Kind == "Ingress" && o.Group() == "networking.k8s.io":
		ann := stringMap(c, "metadata", "annotations")
		if ann["cert-manager.io/cluster-issuer"] != "" || ann["cert-manager.io/issuer"] != "" {
			return nil // cert-manager's ingress-shim makes the TLS Secrets
		}
		for _, x := range listAt(c, "spec", "tls") {
			tls, _ := x.(map[string]any)
			add(strAt(tls, "secretName"), "tls", false)
		}
		return out
	case o.Kind == "ServiceAccount" && o.APIVersion == "v1":
		for _, key := range []string{"secrets", "imagePullSecrets"} {
			for _, x := range listAt(c, key) {
				ref, _ := x.(map[string]any)
				add(strAt(ref, "name"), key, false)
			}
		}
		return out
	}
	for _, spec := range podSpecs(o.Kind, c) {
		for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
			for _, x := range listAt(spec, key) {
				ctr, _ := x.(map[string]any)
				for _, e := range listAt(ctr, "env") {
					env, _ := e.(map[string]any)
					ref := mapAt(env, "valueFrom", "secretKeyRef")
					add(strAt(ref, "name"), "env "+strAt(env, "name"), boolAt(ref, "optional"))
				}
				for _, e := range listAt(ctr, "envFrom") {
					from, _ := e.(map[string]any)
					ref := mapAt(from, "secretRef")
					add(strAt(ref, "name"), "envFrom", boolAt(ref, "optional"))
				}
			}
		}
		for _, x := range listAt(spec, "volumes") {
			vol, _ := x.(map[string]any)
			if sec := mapAt(vol, "secret"); sec != nil {
				add(strAt(sec, "secretName"), "volume "+strAt(vol, "name"), boolAt(sec, "optional"))
			}
			for _, s := range listAt(vol, "projected", "sources") {
				src, _ := s.(map[string]any)
				if sec := mapAt(src, "secret"); sec != nil {
					add(strAt(sec, "name"), "volume "+strAt(vol, "name"), boolAt(sec, "optional"))
				}
			}
		}
		for _, x := range listAt(spec, "imagePullSecrets") {
			ref, _ := x.(map[string]any)
			add(strAt(ref, "name"), "imagePullSecrets", false)
		}
	}
	return out
}

// jobWords are the words of a Job's container commands and arguments
// (split at blanks and "="): a Job that makes a Secret (a certificate
// generator such as kube-webhook-certgen, run as a Helm hook) names it
// there ("--secret-name=ingress-nginx-admission").
func jobWords(c map[string]any) []string {
	var out []string
	for _, spec := range podSpecs("Job", c) {
		for _, key := range []string{"initContainers", "containers"} {
			for _, x := range listAt(spec, key) {
				ctr, _ := x.(map[string]any)
				for _, field := range []string{"command", "args"} {
					for _, a := range listAt(ctr, field) {
						s, _ := a.(string)
						out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == '=' || unicode.IsSpace(r) })...)
					}
				}
			}
		}
	}
	return out
}

// podSpecs finds an object's pod specs: a Pod's spec, a pod template's
// (workloads and any custom kind with spec.template.spec.containers, such
// as an Argo Rollout), a CronJob's job template's.
func podSpecs(kind string, c map[string]any) []map[string]any {
	var out []map[string]any
	if kind == "Pod" {
		out = append(out, mapAt(c, "spec"))
	}
	for _, path := range [][]string{{"spec", "template", "spec"}, {"spec", "jobTemplate", "spec", "template", "spec"}} {
		if spec := mapAt(c, path...); spec != nil && listAt(spec, "containers") != nil {
			out = append(out, spec)
		}
	}
	return out
}
