package lint

import (
	"cmp"
	"slices"
	"sync"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/schema"
)

// shared is what every part of a run reads alike of the repository: its
// files' facts and its suppressions, read once (lintByCluster checks a
// cluster at a time with one), and the schema validator, made once when
// every part has the same CRDs, where objects and values are found, and
// the admission policies compiled and the objects admitted (the parts run
// one after the other: admissionRun is not safe for concurrent use).
type shared struct {
	repo        *repoFacts
	sup         *suppressor
	supFindings []Finding
	validator   *sharedValidator
	at          *positions
	admission   *admissionRun
}

// sharedValidator is the schema validator of the parts of one run, made
// by the first part that validates.
type sharedValidator struct {
	once sync.Once
	v    *schema.Validator
	err  error
}

// get returns the validator, made with newValidator the first time.
func (s *sharedValidator) get(newValidator func() (*schema.Validator, error)) (*schema.Validator, error) {
	s.once.Do(func() { s.v, s.err = newValidator() })
	return s.v, s.err
}

// positions are the positions found, shared by the parts of a run, made
// the first time a part asks.
func (sh *shared) positions(repo *layout.Repo, opts Options) *positions {
	if sh.at == nil {
		sh.at = &positions{valuesDocs: valuesDocs{files: sh.repo.files, helm4: helm4(repo, opts)}}
	}
	return sh.at
}

// helm4 reports whether the run's renderings are Helm 4's (the renderer's
// Helm: opts', else the repository's), whose reading of values files
// positions follow.
func helm4(repo *layout.Repo, opts Options) bool {
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
	sh.sup = r.loadSuppressions(func(f Finding) { sh.supFindings = append(sh.supFindings, f) })
	return sh
}
