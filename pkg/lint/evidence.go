package lint

import (
	"context"
	"sync"

	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/schema"
)

// evidence is what the rules that decide by rendering again
// (values-unused) render with: a renderer made as the renderings were.
// crdSources are renderings of other shards' targets, kept for the CRDs
// they render alone.
type evidence struct {
	ctx        context.Context
	renderer   *render.Renderer
	crdSources []*render.Result
	// shared is the repository's facts when a run checks in parts
	// (lintByCluster), read once for all of them; nil: read them.
	shared *shared
	// laterUnused: values-unused judges once after the last part, over
	// the subjects the run gathered (lintByCluster).
	laterUnused bool
}

// shared is what every part of a run reads alike of the repository: its
// files' facts and its suppressions, read once (lintByCluster checks a
// cluster at a time with one), and the schema validator, made once when
// every part has the same CRDs, where objects and values are found, and
// the admission policies compiled and the objects admitted (the parts run
// one after the other: admissionRun is not safe for concurrent use).
type shared struct {
	repo      *repoFacts
	sup       *suppressor
	validator *sharedValidator
	at        *positions
	admission *admissionRun
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
