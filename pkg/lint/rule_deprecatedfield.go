package lint

import (
	"fmt"
	"strconv"

	"github.com/Masterminds/semver/v3"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

var ruleDeprecatedField = &Rule{
	Rule: finding.Rule{
		ID:          "deprecated-field",
		Summary:     "An object sets a field its cluster's Kubernetes version deprecates, or no longer honours.",
		Remediation: "Replace the field as the finding says before the cluster is upgraded to the version that drops it.",
		Severity:    SeverityWarning,
		Description: "stray-api-version checks whole API versions; some changes are to single fields of APIs that stay. repotool checks, in rendered objects " +
			"against their target's cluster version and in the repository's plain manifests against every cluster's (the finding names the " +
			"clusters): Service spec.externalIPs, unless the Service is headless or ExternalName (deprecated in Kubernetes 1.36, removal planned " +
			"for 1.43: it lets whoever may create a Service intercept traffic to any address, CVE-2020-8554), gitRepo volumes in pod templates " +
			"(deprecated since 1.11; from 1.33 the kubelet's gitRepo volume driver is off by default, from 1.36 for good, so the Pod does not " +
			"start: an error) and Service spec.trafficDistribution PreferClose (deprecated in 1.34 for PreferSameZone, which means the same). On " +
			"older clusters nothing is reported.",
		Bad: finding.Example{File: "namespaces/shop/templates/deployment.yaml", Content: `spec:
  template:
    spec:
      volumes:
        - name: site
          gitRepo: {repository: https://example.com/site.git}
`},
		Good: finding.Example{File: "namespaces/shop/templates/deployment.yaml", Content: `spec:
  template:
    spec:
      initContainers:
        - name: clone
          image: alpine/git:2.45.2
          args: [clone, --depth=1, https://example.com/site.git, /site]
          volumeMounts: [{name: site, mountPath: /site}]
      volumes:
        - name: site
          emptyDir: {}
`},
	},
	check: func(in *input, report func(Finding)) {
		checkDeprecatedFields(in.repo.rawAlone(), in.results, in.objects, in.versions, in.at, report)
	},
	facts: []*fact{factDeprecatedFields},
}

// fieldDeprecation is one field-level change of the Kubernetes API.
type fieldDeprecation struct {
	// field names it in messages; needle is what its line holds.
	field, needle string
	// deprecatedIn: a warning from this version; failsIn: an error from
	// this one ("" while it still works).
	deprecatedIn, failsIn string
	// what happens, and what to do instead.
	effect, advice string
	// uses reports whether an object (kind, content) sets the field.
	uses func(kind string, c map[string]any) bool
}

// fieldDeprecations are the checks, in the order findings name them.
var fieldDeprecations = []fieldDeprecation{
	{
		field: "Service spec.externalIPs", needle: "externalIPs", deprecatedIn: "1.36",
		effect: "removal is planned for Kubernetes 1.43; whoever may create a Service can intercept traffic to any address with it (CVE-2020-8554)",
		advice: "use a LoadBalancer Service or a Gateway",
		// As the API server warns: not for a headless or ExternalName
		// Service, which ignores the field.
		uses: func(kind string, c map[string]any) bool {
			typ := strAt(c, "spec", "type")
			headless := (typ == "" || typ == "ClusterIP") && strAt(c, "spec", "clusterIP") == "None"
			return kind == "Service" && len(listAt(c, "spec", "externalIPs")) > 0 && typ != "ExternalName" && !headless
		},
	},
	{
		field: "the gitRepo volume", needle: "gitRepo", deprecatedIn: "1.11", failsIn: "1.33",
		effect: "its driver is off by default from Kubernetes 1.33 (feature gate GitRepoVolumeDriver) and for good from 1.36, and the kubelet then runs no " +
			"Pod with such a volume",
		advice: "clone the repository in an init container into an emptyDir volume",
		uses: func(kind string, c map[string]any) bool {
			for _, spec := range podSpecs(kind, c) {
				for _, v := range listAt(spec, "volumes") {
					if m, ok := v.(map[string]any); ok && m["gitRepo"] != nil {
						return true
					}
				}
			}
			return false
		},
	},
	{
		field: "Service spec.trafficDistribution PreferClose", needle: "PreferClose", deprecatedIn: "1.34",
		effect: "it was renamed",
		advice: "use PreferSameZone, which means the same",
		uses: func(kind string, c map[string]any) bool {
			return kind == "Service" && strAt(c, "spec", "trafficDistribution") == "PreferClose"
		},
	},
}

// factDeprecatedFields is what deprecated-field keeps of the objects a run
// lets go: the indexes in fieldDeprecations of the checks each fails
// (whatever the cluster version).
var factDeprecatedFields = &fact{of: func(o *manifest.Object) []string {
	c := contentOf(o)
	var out []string
	for i, d := range fieldDeprecations {
		if d.uses(o.Kind, c) {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}}

func checkDeprecatedFields(raw []rawObject, results []*render.Result, objs *objects, vs versions, at *positions, report func(Finding)) {
	checkRawDeprecatedFields(raw, vs, at, report)
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		kv := parseKubeVersion(res.Capabilities.KubeVersion)
		for i := range res.Objects {
			o := &res.Objects[i]
			for _, idx := range objs.fact(o, factDeprecatedFields) {
				i, _ := strconv.Atoi(idx)
				d := fieldDeprecations[i]
				sev, state := fieldState(d, kv)
				if sev == "" {
					continue
				}
				report(Finding{Severity: sev, File: o.Source.String(), Line: at.objectLine(o, d.needle), Object: o.ID(), Targets: []string{res.Target.Name()},
					Message: fmt.Sprintf(
						"%s %s uses %s, %s (cluster %s runs %s): %s; %s",
						o.Kind,
						o.Name,
						d.field,
						state,
						res.Target.Cluster,
						kv.Original(),
						d.effect,
						d.advice,
					)})
			}
		}
	}
}

// checkRawDeprecatedFields checks the plain manifests of the repository
// against every cluster's version, as stray-api-version checks their API
// versions: the worst severity over the clusters, naming them.
func checkRawDeprecatedFields(raw []rawObject, vs versions, at *positions, report func(Finding)) {
	clusters := vs.clusterVersions()
	for i := range raw {
		o := &raw[i]
		if o.Encrypted || isPlainManifest(o.File) || o.Node == nil {
			continue // charts' crds/ files are checked as rendered
		}
		var c map[string]any
		if o.Node.Decode(&c) != nil {
			continue // the schema rule reports what does not decode
		}
		for _, d := range fieldDeprecations {
			if !d.uses(o.Kind, c) {
				continue
			}
			var worst Severity
			var state string
			var on []string
			for _, cl := range clusters {
				sev, st := fieldState(d, cl.kv)
				if sev == "" {
					continue
				}
				if worst == "" || sev == SeverityError && worst != SeverityError {
					worst, state = sev, st
				}
				on = append(on, cl.name+" ("+cl.kv.Original()+")")
			}
			if worst == "" {
				continue
			}
			report(Finding{Severity: worst, File: o.File, Line: at.objectLine(&o.Object, d.needle), Object: o.ID(),
				Message: fmt.Sprintf("%s %s uses %s, %s (on %s): %s; %s", o.Kind, o.Name, d.field, state, clusterList(on), d.effect, d.advice)})
		}
	}
}

// fieldState is a field's severity on a cluster at kv ("" when it is not
// deprecated there yet) and what it is there.
func fieldState(d fieldDeprecation, kv *semver.Version) (Severity, string) {
	switch {
	case d.failsIn != "" && !kv.LessThan(minor(d.failsIn)):
		return SeverityError, "which no longer works since Kubernetes " + d.failsIn
	case !kv.LessThan(minor(d.deprecatedIn)):
		return SeverityWarning, "deprecated since Kubernetes " + d.deprecatedIn
	}
	return "", ""
}
