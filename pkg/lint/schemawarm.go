package lint

import (
	"context"

	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/schema"
)

// A run checked a cluster at a time validates most of its documents in
// its first cluster: the clusters render most objects alike, and the
// validator remembers each result by Kubernetes version and document.
// That validation is the fastest allocation of the whole run, and where
// it ran (beside the first cluster restored, its views and its findings)
// it set the run's highest heap: what is allocated during a collection's
// mark counts as live for it. warmSchemas does the same validations
// before the first cluster is restored, when the run holds only its
// stored renderings; each cluster's schema check then finds its results
// remembered. The findings are the schema check's, unchanged: it still
// validates every object, and the validator is the one every cluster
// shares, made from the same CRDs.

// warmSchemas validates each distinct text of the stored renderings hs,
// of targets, for its target's Kubernetes version, with the run's shared
// validator. What fails here (the validator cannot be made, a text cannot
// be read back) is left to the cluster's checks, which report it.
func warmSchemas(ctx context.Context, repo *layout.Repo, opts Options, sh *shared, s *held.Store, hs []*held.Rendering, crds []*render.Result) {
	if !ruleOn(repo, ruleSchema) {
		return
	}
	r := new(repoFacts)
	*r = *sh.repo
	var withCRDs []*render.Result
	for _, c := range crds {
		if c != nil {
			withCRDs = append(withCRDs, c)
		}
	}
	// As buildInput does for every part: each part's CRDs are these.
	r.collectCRDs(inTargetOrder(repo, withCRDs), sh.positionsFor(repo, opts))
	a := asked{renderOpts: opts.Render, schemaDir: opts.SchemaDir}
	v, err := sh.validator.get(func() (*schema.Validator, error) { return newSchemaValidator(r.Repo, r.CRDs, a) })
	if err != nil {
		return
	}
	texts := s.Texts(hs)
	versions := map[string]string{} // each Kubernetes version parsed once, not once a text
	for _, t := range texts {
		if _, ok := versions[t.KubeVersion]; !ok {
			versions[t.KubeVersion] = parseKubeVersion(t.KubeVersion).Original()
		}
	}
	eachParallel(ctx, opts.Render.Concurrency, len(texts), func(i int) {
		text, err := s.Read(texts[i])
		if err != nil {
			return // the cluster's checks read it again, and fail
		}
		v.Validate(versions[texts[i].KubeVersion], text)
	})
}
