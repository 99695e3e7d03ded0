package lint

import (
	"context"
	"fmt"
	"sync"

	"github.com/repotool/repotool/internal/textpool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A run checked a cluster at a time (lintByCluster) renders every target
// once, in chart order, and holds each rendering stored until its
// cluster's checks, in memory, never on disk: each object's text in a
// pool that holds every distinct text once, compressed (internal/textpool:
// the targets of one chart on many clusters render most objects alike; on
// the generated repositories of scripts/bench-scale.sh, 6% of the text is
// distinct), the rest of the objects (names, sources, lines) encoded, in
// the pool too (one chart's targets mostly name and place their objects
// alike on every cluster), their parsed content let go (compact keeps the
// facts of the kinds the cross-object rules do not read; the others are
// parsed again when their cluster is checked), the stream dropped. A
// stored rendering takes a fraction of a parsed one.

// stored is a rendering held for its cluster's checks.
type stored struct {
	// held is the rest of the rendering (render.Renderer.Hold): a
	// Result takes some 400 bytes before its objects, and a map of the
	// decrypted strings it knows, which are in the pool (secrets, when
	// it has any: strings holds whether).
	held    render.Held
	secrets textpool.ID
	strings bool
	// objs are the objects without their text, with their facts
	// (heldObjects), encoded (encodeHeld), in the pool: the renderings of one chart
	// on many clusters mostly name, place and source their objects alike,
	// and refer to the same Secrets.
	objs textpool.ID
	// texts are each object's text's ID in the pool, each as its
	// difference from the one before (textpool.AppendIDs): one rendering's texts
	// mostly went into the pool one after the other, a byte or two each
	// where an ID takes four.
	texts []byte
	// restored is what restore left in the pool, until release.
	restored *restoredTexts
}

// restoredTexts are the texts restore left in the pool, read from there
// when a check asks (manifest.Object.Text) until release; lost is the
// first that could not be read back, which release reports (a check reads
// a text it cannot have as none: the run must fail).
type restoredTexts struct {
	lazy   []textpool.ID
	lostMu sync.Mutex
	lost   error
}

// textIDs are the IDs of the rendering's texts, n of them (any number
// when n < 0).
func (s *stored) textIDs(n int) ([]textpool.ID, error) {
	ids, err := textpool.ReadIDs(s.texts, n)
	if err != nil {
		return nil, fmt.Errorf("stored rendering: %w", err) // not reached
	}
	return ids, nil
}

// heldObjects are a stored rendering's objects, without their texts, and
// compact's facts of each, as the pool holds them.
type heldObjects struct {
	Objects []manifest.Object
	Facts   []heldFacts
}

// heldFacts are an object's facts (objectFacts) as encodeHeld encodes
// them; Kept: the object has none (its content was kept).
type heldFacts struct {
	Kept       bool
	Uses       [][2]string // name, how
	JobWords   []string
	Deprecated []int
	SOPSValue  bool
}

// hold is f as the pool holds it.
func hold(f *objectFacts) heldFacts {
	if f == nil {
		return heldFacts{Kept: true}
	}
	h := heldFacts{JobWords: f.jobWords, Deprecated: f.deprecated, SOPSValue: f.sopsValue}
	for _, u := range f.uses {
		h.Uses = append(h.Uses, [2]string{u.name, u.how})
	}
	return h
}

// facts are the facts h holds; nil when the object has none.
func (h heldFacts) facts() *objectFacts {
	if h.Kept {
		return nil
	}
	if h.Uses == nil && h.JobWords == nil && h.Deprecated == nil && !h.SOPSValue {
		return noFacts
	}
	f := &objectFacts{jobWords: h.JobWords, deprecated: h.Deprecated, sopsValue: h.SOPSValue}
	for _, u := range h.Uses {
		f.uses = append(f.uses, secretUse{u[0], u[1]})
	}
	return f
}

// store keeps res, as r renders it, stored: its objects' texts in texts
// and their facts taken out of facts; res is let go.
func store(r *render.Renderer, res *render.Result, facts compacted, texts *textpool.Pool) (*stored, error) {
	s := &stored{}
	ids := make([]textpool.ID, len(res.Objects))
	held, secrets := r.Hold(res)
	s.held, s.strings = held, secrets != nil
	if s.strings {
		var err error
		if s.secrets, err = texts.Put(secrets); err != nil {
			return nil, err
		}
	}
	objs := heldObjects{Objects: res.Objects, Facts: make([]heldFacts, len(res.Objects))}
	for i := range res.Objects {
		o := &res.Objects[i]
		objs.Facts[i] = hold(facts[o])
		delete(facts, o)
		var err error
		if ids[i], err = texts.Put(o.YAML); err != nil {
			return nil, err
		}
		o.Content, o.YAML = nil, nil
	}
	s.texts = textpool.AppendIDs(nil, ids...)
	var err error
	if s.objs, err = texts.Put(encodeHeld(nil, objs.Objects, objs.Facts)); err != nil {
		return nil, err
	}
	return s, nil
}

// restore makes the rendering of t again, as r rendered it within ctx,
// its objects given back, with their facts to facts. The kinds the cross-object rules read (keepsContent) get their
// texts back from texts, and their parsed content, as compact left them.
// The others' texts stay in texts, compressed, read from
// there whenever a check asks for one (manifest.Object.Text), one at a
// time, until release: a 1,000-target cluster's texts take some 30 MB
// restored, and most checks read each text once.
func (s *stored) restore(ctx context.Context, r *render.Renderer, t layout.Target, facts compacted, texts *textpool.Pool,
	names interned) (*render.Result, error) {
	blob, err := texts.Take(s.objs)
	if err != nil {
		return nil, err
	}
	held, err := decodeHeld(blob, names)
	if err != nil {
		return nil, err
	}
	objs := held.Objects
	ids, err := s.textIDs(len(objs))
	if err != nil {
		return nil, err
	}
	if len(held.Facts) != len(objs) {
		return nil, fmt.Errorf("stored rendering: %d objects, %d facts", len(objs), len(held.Facts)) // not reached
	}
	rt := &restoredTexts{}
	s.restored = rt
	for i := range objs {
		o := &objs[i]
		if f := held.Facts[i].facts(); f != nil {
			facts[o] = f
		}
		if !keepsContent(o) {
			id := ids[i]
			o.HoldText(func() ([]byte, error) { return rt.load(texts, id) })
			rt.lazy = append(rt.lazy, id)
			continue
		}
		text, err := texts.Take(ids[i])
		if err != nil {
			return nil, err
		}
		o.YAML = text
		if o.Content, err = manifest.Decode(o.YAML); err != nil {
			return nil, err
		}
	}
	var secrets []byte
	if s.strings {
		if secrets, err = texts.Take(s.secrets); err != nil {
			return nil, err
		}
	}
	return r.Unhold(ctx, t, s.held, secrets, objs)
}

// interned holds each name restored objects share once: their kinds, API
// versions, namespaces and sources (decodeHeld), which would otherwise be
// strings of each object's own (a 1,000-target cluster restores some
// 15,000 objects).
type interned map[string]string

// load reads text id back from texts for a check, keeping the first
// failure for release.
func (rt *restoredTexts) load(texts *textpool.Pool, id textpool.ID) ([]byte, error) {
	text, err := texts.Append(nil, id)
	if err != nil {
		rt.lostMu.Lock()
		if rt.lost == nil {
			rt.lost = err
		}
		rt.lostMu.Unlock()
	}
	return text, err
}

// release lets go of the texts restore left in texts: once the
// rendering's checks are done. It fails, naming t, when a check could not
// read one back.
func (s *stored) release(texts *textpool.Pool, t layout.Target) error {
	rt := s.restored
	if rt == nil {
		return nil
	}
	rt.lostMu.Lock()
	lost := rt.lost
	rt.lostMu.Unlock()
	if lost != nil {
		return fmt.Errorf("%s: a rendered object's text held in memory could not be read back for its checks: %w", t.Name(), lost)
	}
	for _, id := range rt.lazy {
		if err := texts.Release(id); err != nil {
			return err
		}
	}
	s.restored = nil
	return nil
}
