package held

import (
	"context"
	"fmt"
	"sync"

	"github.com/repotool/repotool/internal/textpool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Store holds renderings in memory until they are taken back. Close it
// when done: its pool is off Go's heap.
type Store struct {
	texts *textpool.Pool
}

// NewStore is an empty store.
func NewStore() *Store { return &Store{texts: textpool.New()} }

// Close lets go of everything the store holds.
func (s *Store) Close() error { return s.texts.Close() }

// Len is how many texts the store holds (each distinct one once).
func (s *Store) Len() int { return s.texts.Len() }

// Rendering is one rendering in a Store.
type Rendering struct {
	// held is the rest of the rendering (render.Renderer.Hold): a
	// Result takes some 400 bytes before its objects, and a map of the
	// decrypted strings it knows, which are in the pool (secrets, when
	// it has any: strings holds whether).
	held    render.Held
	secrets textpool.ID
	strings bool
	// objs are the objects without their texts, with their facts,
	// encoded (encode), in the pool: the renderings of one chart on many
	// clusters mostly name, place and source their objects alike.
	objs textpool.ID
	// texts are each object's text's ID in the pool, each as its
	// difference from the one before (textpool.AppendIDs): one
	// rendering's texts mostly went into the pool one after the other.
	texts []byte
	// restored is what Restore left in the pool, until Release.
	restored *restoredTexts
}

// KubeVersion is the Kubernetes version the rendering was rendered for.
func (h *Rendering) KubeVersion() string { return h.held.KubeVersion() }

// Err is why its target did not render.
func (h *Rendering) Err() error { return h.held.Err() }

// restoredTexts are the texts Restore left in the pool, read from there
// when a check asks (manifest.Object.Text) until Release; lost is the
// first that could not be read back, which Release reports (a text read
// as none would be a check passed unseen: the run must fail).
type restoredTexts struct {
	lazy   []textpool.ID
	lostMu sync.Mutex
	lost   error
}

// Put stores res as r rendered it, each object with its facts (facts(o);
// nil for an object whose content the holder keeps): its objects' texts
// in the pool, the rest encoded. res is let go: its objects lose their
// texts and contents.
func (s *Store) Put(r *render.Renderer, res *render.Result, facts func(o *manifest.Object) Facts) (*Rendering, error) {
	h := &Rendering{}
	ids := make([]textpool.ID, len(res.Objects))
	held, secrets := r.Hold(res)
	h.held, h.strings = held, secrets != nil
	if h.strings {
		var err error
		if h.secrets, err = s.texts.Put(secrets); err != nil {
			return nil, err
		}
	}
	all := make([]Facts, len(res.Objects))
	for i := range res.Objects {
		o := &res.Objects[i]
		all[i] = facts(o)
		var err error
		if ids[i], err = s.texts.Put(o.YAML); err != nil {
			return nil, err
		}
		o.Content, o.YAML = nil, nil
	}
	h.texts = textpool.AppendIDs(nil, ids...)
	var err error
	if h.objs, err = s.texts.Put(encode(nil, res.Objects, all)); err != nil {
		return nil, err
	}
	return h, nil
}

// Restore makes the rendering of t again, as r rendered it within ctx,
// with each object's facts, as Put was given them. The objects parse
// reports true for get their texts back and their content parsed; the
// others' texts stay in the pool, compressed, read from there whenever a
// check asks for one (manifest.Object.Text), until Release. names holds
// each name the restored objects share once (a cluster's objects share
// one Names).
func (s *Store) Restore(ctx context.Context, r *render.Renderer, t layout.Target, h *Rendering, parse func(o *manifest.Object) bool,
	names Names) (*render.Result, []Facts, error) {
	blob, err := s.texts.Take(h.objs)
	if err != nil {
		return nil, nil, err
	}
	objs, facts, err := decode(blob, names)
	if err != nil {
		return nil, nil, err
	}
	ids, err := h.textIDs(len(objs))
	if err != nil {
		return nil, nil, err
	}
	rt := &restoredTexts{}
	h.restored = rt
	for i := range objs {
		o := &objs[i]
		if !parse(o) {
			id := ids[i]
			o.HoldText(func() ([]byte, error) { return rt.load(s.texts, id) })
			rt.lazy = append(rt.lazy, id)
			continue
		}
		text, err := s.texts.Take(ids[i])
		if err != nil {
			return nil, nil, err
		}
		o.YAML = text
		if o.Content, err = manifest.Decode(o.YAML); err != nil {
			return nil, nil, err
		}
	}
	var secrets []byte
	if h.strings {
		if secrets, err = s.texts.Take(h.secrets); err != nil {
			return nil, nil, err
		}
	}
	res, err := r.Unhold(ctx, t, h.held, secrets, objs)
	return res, facts, err
}

// Release lets go of the texts Restore left in the pool, once the
// rendering's checks are done. It fails, naming t, when a check could not
// read one back.
func (s *Store) Release(h *Rendering, t layout.Target) error {
	rt := h.restored
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
		if err := s.texts.Release(id); err != nil {
			return err
		}
	}
	h.restored = nil
	return nil
}

// Text is one text of a stored rendering, for the Kubernetes version it
// was rendered for.
type Text struct {
	KubeVersion string
	id          textpool.ID
}

// Texts are the distinct (text, Kubernetes version) pairs of the
// renderings that rendered, each once, in their order: a run that
// validates every object warms its validator with them (lint's schema
// warm-up). A rendering whose texts cannot be listed is passed by: what
// restores it fails.
func (s *Store) Texts(hs []*Rendering) []Text {
	var out []Text
	seen := map[Text]bool{}
	for _, h := range hs {
		if h == nil || h.Err() != nil {
			continue
		}
		ids, err := h.textIDs(-1)
		if err != nil {
			continue
		}
		for _, id := range ids {
			if t := (Text{h.KubeVersion(), id}); !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Read is t's bytes, read back from the pool (safe for concurrent use).
func (s *Store) Read(t Text) ([]byte, error) { return s.texts.Append(nil, t.id) }

// textIDs are the IDs of the rendering's texts, n of them (any number
// when n < 0).
func (h *Rendering) textIDs(n int) ([]textpool.ID, error) {
	ids, err := textpool.ReadIDs(h.texts, n)
	if err != nil {
		return nil, fmt.Errorf("stored rendering: %w", err) // not reached
	}
	return ids, nil
}

// load reads text id back from texts for a check, keeping the first
// failure for Release.
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
