package lint

import (
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// registry holds every rule, sorted by ID (a test keeps it so).
var registry = []*Rule{
	ruleAdmissionDrift,
	ruleAdmissionPolicy,
	ruleArgoCDExcluded,
	ruleCustomCheck,
	ruleDeprecatedField,
	ruleDuplicateObject,
	ruleInvalidSuppression,
	ruleLayout,
	rulePlaintextSecret,
	ruleProjectPermission,
	ruleRender,
	ruleSchema,
	ruleSecretConflict,
	ruleSecretReference,
	ruleSecretStoreReference,
	ruleShortnameCollision,
	ruleSOPSKeyNotAllowed,
	ruleStrayAPIVersion,
	ruleUnstableRender,
	ruleValuesListReplaced,
	ruleValuesTypeMismatch,
	ruleValuesUnused,
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule {
	out := make([]Rule, len(registry))
	for i, r := range registry {
		out[i] = *r
	}
	return out
}

// RuleDocs returns the documentation of every rule, sorted by ID: what
// formatters (SARIF's rule list) and docs/rules.md show.
func RuleDocs() []finding.Rule {
	out := make([]finding.Rule, len(registry))
	for i, r := range registry {
		out[i] = r.Rule
	}
	return out
}

// RuleByID returns the rule with id.
func RuleByID(id string) (Rule, bool) {
	i, ok := slices.BinarySearchFunc(registry, id, func(r *Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return Rule{}, false
	}
	return *registry[i], true
}

// ruleFacts are the facts of every rule of the registry, in its order.
var ruleFacts = func() []*fact {
	var out []*fact
	for _, r := range registry {
		for _, f := range r.facts {
			f.at = len(out)
			out = append(out, f)
		}
	}
	return out
}()

// checkAll is Check, for renderings whose content a run let go of (objs).
func checkAll(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence) *Result {
	res := &Result{}
	res.unused, res.err = runChecks(repo, results, opts, objs, ev, func(f Finding, suppressed bool) {
		if suppressed {
			res.suppressed = append(res.suppressed, f)
			res.Summary.Suppressed++
			return
		}
		res.Findings = append(res.Findings, f)
	})
	countRendered(&res.Summary, results)
	res.Finish()
	return res
}

// runChecks runs every rule over results, handing each finding to out as
// it is found, with whether a suppression leaves it out. It returns
// values-unused's scan in a sharded run (Result.unused) and a failure of
// repotool itself (Result.Err).
func runChecks(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence,
	out func(f Finding, suppressed bool)) (*unusedScan, error) {
	in := buildInput(repo, results, opts, objs, ev)
	in.isRule = func(id string) bool { _, ok := RuleByID(id); return ok }
	for _, r := range registry {
		runRule(repo, r, func(emit func(Finding)) { r.check(in, emit) }, func(f Finding) { out(f, in.sup.suppressed(f)) })
	}
	return in.unused, in.toolErr
}

// ruleOn reports whether repo's configuration leaves rule r on.
func ruleOn(repo *layout.Repo, r *Rule) bool {
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r.always {
		return true
	}
	return override != "off" && (override != "" || !r.Off)
}

// runRule runs one rule (check calls the rule's check with a function
// taking each finding) at the severity repotool.yaml gives it, unless it
// is off there, and hands out each finding.
func runRule(repo *layout.Repo, r *Rule, check func(emit func(Finding)), out func(Finding)) {
	if !ruleOn(repo, r) {
		return
	}
	override := repo.Config.Lint.Rules[r.ID].Severity
	if r.always {
		override = ""
	}
	check(func(f Finding) {
		f.Rule = r.ID
		if f.Severity == "" {
			f.Severity = r.Severity
		}
		if override != "" {
			f.Severity = Severity(override)
		}
		out(f)
	})
}
