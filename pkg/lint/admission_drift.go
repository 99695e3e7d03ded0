package lint

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/config"
)

// reportDrift reports the fields of p that the cluster's mutating policies
// change and Argo CD would show as drift; rendered is p as the API server
// decodes it, before admission.
func (ac *admissionCheck) reportDrift(v *clusterView, p *placed, rendered map[string]any, mutations []admission.Mutation, report func(Finding)) {
	cfg := &ac.repo.Repo.Config
	if len(mutations) == 0 || cfg.ArgoCD.ServerSideDiff || v.plan == nil || p.res.Target.App != nil {
		return // an Application's own ignoreDifferences are not read yet: no guess
	}
	builtin := builtinKind(schema.FromAPIVersionAndKind(p.o.APIVersion, p.o.Kind))
	ignores := cfg.IgnoreDifferencesFor(p.res.Target.Namespace)
	type byBinding struct {
		m      admission.Mutation
		fields []string
	}
	var found []*byBinding
	for _, m := range mutations {
		i := slices.IndexFunc(found, func(b *byBinding) bool { return b.m.Policy == m.Policy && b.m.Binding == m.Binding })
		if i < 0 {
			found = append(found, &byBinding{m: m})
			i = len(found) - 1
		}
		for _, ptr := range m.Fields {
			if at, ok := driftField(rendered, ptr, builtin); ok && !ignored(ignores, p, at) && !slices.Contains(found[i].fields, at) {
				found[i].fields = append(found[i].fields, at)
			}
		}
	}
	place := v.plan.Place(&p.res.Target, p.o)
	if ac.driftEntry != nil || cfg.ArgoCD.AdmissionIgnoreDifferences {
		// generate writes the fields into the Application's
		// ignoreDifferences (DriftIgnores): no finding.
		var fields []string
		for _, b := range found {
			fields = append(fields, b.fields...)
		}
		if ac.driftEntry != nil && len(fields) > 0 {
			ac.driftEntry(v.name, place, p, fields)
		}
		return
	}
	for _, b := range found {
		if len(b.fields) > 0 {
			report(ac.driftFinding(v.name, place.Application, p, rendered, b.m, b.fields))
		}
	}
}

// driftFinding is the finding of the fields one policy's binding changes,
// at the values line (or template line) that sets the first of them.
func (ac *admissionCheck) driftFinding(cluster, app string, p *placed, rendered map[string]any, m admission.Mutation, fields []string) Finding {
	shown := strings.Join(fields, ", ")
	if mutationReadsSecrets(m) || slices.ContainsFunc(fields, func(f string) bool { return namesSecret(p.res, f) }) {
		shown = "fields whose names hold a secret value" // or may: the policy read secret data
	}
	entry := fmt.Sprintf("{group: %q, kind: %s, name: %s, jsonPointers: [%s]}", p.o.Group(), p.o.Kind, p.o.Name, strings.Join(fields, ", "))
	if strings.HasPrefix(shown, "fields whose") {
		entry = fmt.Sprintf("{group: %q, kind: %s, name: %s} with the fields' pointers", p.o.Group(), p.o.Kind, p.o.Name)
	}
	f := Finding{
		Object: p.o.ID(), Targets: []string{p.res.Target.Name()}, Key: m.Policy + "/" + m.Binding,
		Message: fmt.Sprintf("%s %s (binding %s) changes %s of %s in cluster %s, which Argo CD compares: Application %s would stay OutOfSync "+
			"(and self-heal would apply it again, in a loop); add %s to namespaces.%s.ignoreDifferences in repotool.yaml, set the value the "+
			"policy sets, or compare with server-side diff (argocd.serverSideDiff)", admission.KindMutatingPolicy, m.Policy, m.Binding, shown, p.o.ID(),
			cluster, app, entry, p.res.Target.Namespace),
	}
	f.File, f.Line = ac.fieldPosition(p, rendered, fields)
	if f.File != p.o.Source.String() {
		f.Template = p.o.Source.String()
	}
	f.Related = append(f.Related, ac.admissionLocation(m.PolicyRef.(*admissionRef), "/spec/mutations", "the policy"))
	if m.BindingRef != nil {
		f.Related = append(f.Related, ac.admissionLocation(m.BindingRef.(*admissionRef), "", "the binding"))
	}
	return f
}

// driftField reports whether Argo CD's three-way diff shows a change at
// ptr as drift, and at which field: ptr itself when the manifest sets it
// (the policy changed or removed its value); for a custom resource, the
// list the manifest sets that ptr is inside (Argo CD replaces its lists
// whole).
func driftField(rendered map[string]any, ptr string, builtin bool) (string, bool) {
	tokens := jsonptr.Split(ptr)
	if _, ok := jsonptr.Get(rendered, tokens); ok {
		return ptr, true
	}
	if builtin {
		return "", false
	}
	for i := len(tokens) - 1; i > 0; i-- {
		if v, ok := jsonptr.Get(rendered, tokens[:i]); ok {
			if _, list := v.([]any); list {
				return jsonptr.Join(tokens[:i]), true
			}
		}
	}
	return "", false
}

// ignored reports whether an ignoreDifferences entry covers field ptr of
// object p.
func ignored(ignores []config.IgnoreDifference, p *placed, ptr string) bool {
	for _, d := range ignores {
		if d.Selects(p.o.Group(), p.o.Kind, p.ns, p.o.Name) && d.Covers(ptr) {
			return true
		}
	}
	return false
}
