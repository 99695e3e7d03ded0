package lint

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

var ruleStrayAPIVersion = &Rule{
	Rule: finding.Rule{
		ID:      "stray-api-version",
		Summary: "An object uses an apiVersion/kind that the target cluster does not serve: deprecated, removed, archived, or provided by nothing.",
		Remediation: "Change the object to the replacement apiVersion (migrating its fields), or add the CRD that provides it to the repository, or declare " +
			"it in repotool.yaml (clusters.<cluster>.apiVersions) if it is installed another way.",
		Severity: SeverityError,
		Description: "Checks every rendered object against the target cluster's Kubernetes version, and every plain manifest in the repository (outside " +
			"charts) against every cluster's version, naming the clusters that no longer serve it (as pluto does), with a deprecation table: " +
			"Kubernetes' own lifecycle data for every pre-release API version the client libraries know (the APILifecycleDeprecated/Removed " +
			"methods of k8s.io/api, what the API server serves by), and a table embedded in repotool (each entry with the Kubernetes version it " +
			"was deprecated and removed in, and the replacement), extendable with `lint.deprecations` in repotool.yaml: removed APIs such as " +
			"`extensions/v1beta1` Ingress are errors, deprecated ones warnings. It knows third-party APIs that their projects no longer serve: the " +
			"archived kubernetes-external-secrets `kubernetes-client.io/v1` (migrate to External Secrets Operator), and External Secrets Operator " +
			"`v1alpha1` (removed) and `v1beta1` (no longer served: use `v1`). The table is per kind, not per group: ESO's PushSecret is still " +
			"current at `v1alpha1`. Finally it reports any apiVersion/kind that neither Kubernetes nor a CRD in the repository provides (or a " +
			"version the repository's CRD does not serve), unless the cluster's `apiVersions` in repotool.yaml declare it.",
		Bad: Example{File: "namespaces/shop/templates/ingress.yaml", Content: `apiVersion: extensions/v1beta1   # removed in Kubernetes 1.22
kind: Ingress
metadata:
  name: shop
spec:
  backend:
    serviceName: shop
    servicePort: 80
`},
		Good: Example{File: "namespaces/shop/templates/ingress.yaml", Content: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
spec:
  defaultBackend:
    service:
      name: shop
      port:
        number: 80
`},
	},
	check: func(in *input, report func(Finding)) {
		checkAPIVersions(in.repo, in.results, in.versions, in.at, report)
	},
}

//go:embed data/deprecations.yaml
var deprecationsYAML []byte

var builtinDeprecations = sync.OnceValue(func() []config.Deprecation {
	var out []config.Deprecation
	if err := yaml.UnmarshalStrict(deprecationsYAML, &out); err != nil {
		panic("lint: embedded data/deprecations.yaml: " + err.Error()) // a build defect, caught by tests
	}
	return out
})

// knownKinds are the built-in group/version/kinds of the Kubernetes client
// libraries repotool is built with.
var knownKinds = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	s := runtime.NewScheme()
	_ = scheme.AddToScheme(s)
	_ = apiextensionsv1.AddToScheme(s)
	for gvk := range s.AllKnownTypes() {
		out[gvk.GroupVersion().String()+"/"+gvk.Kind] = true
	}
	for _, k := range []string{"apiregistration.k8s.io/v1/APIService"} { // kube-aggregator, not in client-go
		out[k] = true
	}
	return out
})

func checkAPIVersions(r *repoFacts, results []*render.Result, vs versions, at *positions, report func(Finding)) {
	table := deprecationTable(r.Repo.Config.Lint.Deprecations)
	crds := r.CRDs
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		// What the target was rendered for, as render decided it.
		t := &res.Target
		kv := parseKubeVersion(res.Capabilities.KubeVersion)
		declared := res.Capabilities.APIVersions
		for i := range res.Objects {
			o := &res.Objects[i]
			msg, sev := apiVersionProblem(o.APIVersion, o.Kind, kv, t.Cluster, table, crds, declared)
			if msg == "" {
				continue
			}
			f := Finding{Severity: sev, Object: o.ID(), Targets: []string{t.Name()}, Message: msg, File: o.Source.String(), Key: o.APIVersion + "/" + o.Kind}
			if n := at.objectNode(o); n != nil {
				f.Line = n.Line
			} else {
				f.Line = at.objectLine(o, "apiVersion: "+o.APIVersion)
			}
			report(f)
		}
	}
	checkRawAPIVersions(r.rawAlone(), vs, table, report)
}

// checkRawAPIVersions checks the repository's plain manifests (outside
// charts: a bootstrap/ folder, vendored upstream YAML) against every
// cluster's Kubernetes version with the same table, as pluto does: one
// finding per object, naming the clusters that no longer serve it. Kinds
// the table does not know are left alone (a Kustomization, say, is not a
// cluster object).
func checkRawAPIVersions(raw []rawObject, vs versions, table map[string]config.Deprecation, report func(Finding)) {
	clusters := vs.clusterVersions()
	for i := range raw {
		o := &raw[i]
		d, ok := table[o.APIVersion+"/"+o.Kind]
		if !ok || o.Encrypted || isPlainManifest(o.File) {
			continue // charts' crds/ files are checked as rendered
		}
		var removed, deprecated []string
		for _, c := range clusters {
			switch r, dep := servedState(d, c.kv); {
			case d.Removed, r:
				removed = append(removed, c.name+" ("+c.kv.Original()+")")
			case dep:
				deprecated = append(deprecated, c.name+" ("+c.kv.Original()+")")
			}
		}
		f := Finding{Object: o.ID(), File: o.File, Line: o.Line, Key: o.APIVersion + "/" + o.Kind}
		switch {
		case d.Removed:
			f.Severity = SeverityError
			f.Message = fmt.Sprintf("%s %s is no longer served by current releases of its project%s", o.APIVersion, o.Kind, advice(d))
		case len(removed) > 0:
			f.Severity = SeverityError
			f.Message = fmt.Sprintf("%s %s was removed in Kubernetes %s: no longer served by %s%s", o.APIVersion, o.Kind, d.RemovedIn, clusterList(removed), advice(d))
			if len(deprecated) > 0 {
				f.Message += fmt.Sprintf("; deprecated on %s", clusterList(deprecated))
			}
		case len(deprecated) > 0:
			f.Severity = SeverityWarning
			f.Message = fmt.Sprintf(
				"%s %s is deprecated since Kubernetes %s%s, on %s%s",
				o.APIVersion,
				o.Kind,
				d.DeprecatedIn,
				toBeRemoved(d),
				clusterList(deprecated),
				advice(d),
			)
		default:
			continue
		}
		report(f)
	}
}

// servedState says whether a cluster at kv no longer serves a Kubernetes
// API version by its deprecation (removed), or serves it deprecated.
func servedState(d config.Deprecation, kv *semver.Version) (removed, deprecated bool) {
	removed = d.RemovedIn != "" && !kv.LessThan(minor(d.RemovedIn))
	deprecated = !removed && d.DeprecatedIn != "" && !kv.LessThan(minor(d.DeprecatedIn))
	return removed, deprecated
}

// advice ends a deprecation message: ": use <replacement>" and " (<note>)",
// each when known.
func advice(d config.Deprecation) string {
	s := ""
	if d.Replacement != "" {
		s = ": use " + d.Replacement
	}
	if d.Note != "" {
		s += " (" + d.Note + ")"
	}
	return s
}

// toBeRemoved is ", to be removed in <version>" when one is scheduled.
func toBeRemoved(d config.Deprecation) string {
	if d.RemovedIn == "" {
		return ""
	}
	return ", to be removed in " + d.RemovedIn
}

func clusterList(names []string) string {
	if len(names) == 1 {
		return "cluster " + names[0]
	}
	return "clusters " + strings.Join(names, ", ")
}

func deprecationTable(extra []config.Deprecation) map[string]config.Deprecation {
	out := map[string]config.Deprecation{}
	// Kubernetes' own lifecycle data first; the embedded table (with its
	// notes, third-party APIs and kinds k8s.io/api no longer has types
	// for) over it; repotool.yaml entries win.
	for _, d := range slices.Concat(lifecycleDeprecations(), builtinDeprecations(), extra) {
		out[d.APIVersion+"/"+d.Kind] = d
	}
	return out
}

// lifecycleDeprecations is Kubernetes' own record of when each pre-release
// API version was deprecated and stops being served: the
// APILifecycleDeprecated/Removed/Replacement methods that k8s.io/api
// generates for every beta and alpha type (prerelease-lifecycle-gen), the
// data the API server itself serves by. Every kind the client libraries
// repotool is built with know is covered, whether or not the embedded
// table lists it.
var lifecycleDeprecations = sync.OnceValue(func() []config.Deprecation {
	type deprecated interface{ APILifecycleDeprecated() (int, int) }
	type removed interface{ APILifecycleRemoved() (int, int) }
	type replaced interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
	s := runtime.NewScheme()
	_ = scheme.AddToScheme(s)
	_ = apiextensionsv1beta1.AddToScheme(s)
	var out []config.Deprecation
	for gvk := range s.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		r, ok := obj.(removed)
		if !ok {
			continue
		}
		d := config.Deprecation{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
		major, minor := r.APILifecycleRemoved()
		d.RemovedIn = fmt.Sprintf("%d.%d", major, minor)
		if dep, ok := obj.(deprecated); ok {
			major, minor := dep.APILifecycleDeprecated()
			d.DeprecatedIn = fmt.Sprintf("%d.%d", major, minor)
		}
		if rep, ok := obj.(replaced); ok {
			if g := rep.APILifecycleReplacement(); g.Version != "" {
				d.Replacement = g.GroupVersion().String()
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b config.Deprecation) int {
		return strings.Compare(a.APIVersion+"/"+a.Kind, b.APIVersion+"/"+b.Kind)
	})
	return out
})

// apiVersionProblem returns what is wrong with apiVersion/kind on a cluster
// at version kv, or "".
func apiVersionProblem(
	apiVersion, kind string,
	kv *semver.Version,
	cluster string,
	table map[string]config.Deprecation,
	crds *manifest.CRDs,
	declared []string,
) (string, Severity) {
	if apiVersion == "" || kind == "" {
		return "the object has no apiVersion or kind, so it cannot be applied", SeverityError
	}
	if d, ok := table[apiVersion+"/"+kind]; ok {
		switch removed, deprecated := servedState(d, kv); {
		case d.Removed:
			return fmt.Sprintf("%s %s is no longer served by current releases of its project%s", apiVersion, kind, advice(d)), SeverityError
		case removed:
			return fmt.Sprintf(
				"%s %s was removed in Kubernetes %s and cluster %s runs %s%s",
				apiVersion,
				kind,
				d.RemovedIn,
				cluster,
				kv.Original(),
				advice(d),
			), SeverityError
		case deprecated:
			return fmt.Sprintf(
				"%s %s is deprecated since Kubernetes %s%s (cluster %s runs %s)%s",
				apiVersion,
				kind,
				d.DeprecatedIn,
				toBeRemoved(d),
				cluster,
				kv.Original(),
				advice(d),
			), SeverityWarning
		}
	}
	if knownKinds()[apiVersion+"/"+kind] {
		return "", ""
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	if c, ok := crds.Lookup(group, kind); ok {
		for _, v := range c.Versions {
			if v.Name == version && v.Served {
				return "", ""
			}
		}
		return fmt.Sprintf(
			"the repository's CRD %s does not serve %s (it serves %s): use %s/%s",
			c.Name,
			version,
			strings.Join(c.Served(), ", "),
			group,
			firstOr(c.Served(), version),
		), SeverityError
	}
	for _, d := range declared {
		if d == apiVersion || d == apiVersion+"/"+kind {
			return "", ""
		}
	}
	return fmt.Sprintf(
		"neither Kubernetes nor a CRD in the repository provides %s %s; add its CRD to the repository, or declare it in repotool.yaml "+
			"(clusters.%s.apiVersions) if it is installed another way",
		apiVersion,
		kind,
		cluster,
	), SeverityError
}

func minor(v string) *semver.Version {
	sv, err := semver.NewVersion(v)
	if err != nil {
		return semver.MustParse("999.0.0")
	}
	return sv
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
