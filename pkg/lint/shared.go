package lint

import (
	"cmp"
	"slices"

	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// positionsFor are the positions found, shared by the parts of a run, made
// the first time a part asks.
func (sh *shared) positionsFor(repo *layout.Repo, opts Options) *positions {
	if sh.at == nil {
		sh.at = &positions{valuesDocs: valuesDocs{files: sh.repo.files, helm4: readsAsHelm4(repo, opts)}}
	}
	return sh.at
}

// readsAsHelm4 reports whether the run's renderings are Helm 4's (the renderer's
// Helm: opts', else the repository's), whose reading of values files
// positions follow.
func readsAsHelm4(repo *layout.Repo, opts Options) bool {
	return opts.Render.HelmFor(repo) == render.HelmV4
}

// inTargetOrder sorts renderings by their target's place in repo.
func inTargetOrder(repo *layout.Repo, results []*render.Result) []*render.Result {
	at := map[string]int{}
	for i, t := range repo.Targets {
		at[t.Name()] = i
	}
	out := slices.Clone(results)
	slices.SortStableFunc(out, func(a, b *render.Result) int { return cmp.Compare(at[a.Target.Name()], at[b.Target.Name()]) })
	return out
}

// readRepo reads repo's files for the checks: its plain manifests,
// .sops.yaml and suppressions.
func readRepo(repo *layout.Repo) *shared {
	r := &repoFacts{Repo: repo, files: repoFiles(repo)}
	r.readScanned()
	r.scanRaw()
	r.loadSops()
	sh := &shared{repo: r, validator: &sharedValidator{}, admission: newAdmissionRun()}
	sh.sup = r.loadSuppressions()
	return sh
}

// repoFiles is repo's file index (a Repo not made by layout.Load has
// none).
func repoFiles(repo *layout.Repo) *layout.Files {
	if repo.Files != nil {
		return repo.Files
	}
	return layout.NewFiles(repo.FS)
}

// loadSuppressions reads suppression comments from every YAML and template
// file of the repository (those readScanned found the token in), with the
// problems of malformed ones (invalid-suppression reports them, and the
// rules they name that do not exist).
func (r *repoFacts) loadSuppressions() *suppressor {
	s := &suppressor{byFile: map[string][]Suppression{}, cfg: r.Repo.Config.Lint.Ignore}
	for _, p := range r.suppressing { // the files that hold the token
		data, _ := r.repoFile(p).Data()
		sups, probs := ParseSuppressions(data)
		for _, pr := range probs {
			s.problems = append(s.problems, Finding{File: p, Line: pr.Line, Message: pr.Message})
		}
		s.byFile[p] = sups
	}
	return s
}

// buildInput assembles the rules' input for a run with opts; facts and ev
// are Lint's (nil from Check).
func buildInput(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence) *input {
	var sh *shared
	if ev != nil {
		sh = ev.shared
	}
	if sh == nil {
		sh = readRepo(repo)
	}
	at := sh.positionsFor(repo, opts)
	r := new(repoFacts)
	*r = *sh.repo // the CRDs are this run's
	r.others = opts.Shard.N > 1 && !opts.Shard.First()
	crdFrom := results
	if ev != nil && len(ev.crdSources) > 0 {
		// A part's (a shard's, a cluster's): the other parts' CRDs, in
		// the repository's target order with its own, so that where two
		// targets render a CRD of one name, the one that wins is the one
		// a whole run takes, in every part.
		crdFrom = inTargetOrder(repo, slices.Concat(results, ev.crdSources))
	}
	r.collectCRDs(crdFrom, at)
	in := &input{repo: r, results: results, objects: objs, at: at, asked: asked{renderOpts: opts.Render, schemaDir: opts.SchemaDir, sharded: opts.Shard.N > 1,
		evidence: ev, keys: opts.Keys, celBudget: cmp.Or(opts.CELBudget, admission.RunBudget), validator: sh.validator},
		versions: versions{repo: repo, override: opts.Render.KubeVersion}}
	in.sup, in.admissionRun = sh.sup, sh.admission
	return in
}
