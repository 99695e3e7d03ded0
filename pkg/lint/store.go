package lint

import (
	"bytes"
	"compress/flate"
	"encoding/gob"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A run checked a cluster at a time (lintByCluster) renders every target
// once, in chart order, and holds each rendering stored until its
// cluster's checks: its objects (their YAML, names and sources) encoded
// and compressed in memory, never on disk, their parsed content let go
// (compact keeps the facts of the kinds the cross-object rules do not
// read; the others are parsed again when their cluster is checked), the
// stream dropped. A stored rendering takes a fraction of a parsed one.

// stored is a rendering held for its cluster's checks.
type stored struct {
	res   *render.Result // without its objects and stream
	blob  []byte         // the objects, gob-encoded and compressed
	facts []*objectFacts // compact's facts of each object, nil for none
}

// store keeps res stored, taking its objects' facts out of facts; res
// must not be read until restore.
func store(res *render.Result, facts compacted) (*stored, error) {
	s := &stored{res: res, facts: make([]*objectFacts, len(res.Objects))}
	for i := range res.Objects {
		o := &res.Objects[i]
		s.facts[i] = facts[o]
		delete(facts, o)
		o.Content = nil
	}
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	if err := gob.NewEncoder(w).Encode(res.Objects); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	s.blob = bytes.Clone(buf.Bytes())
	res.Objects, res.Manifest = nil, nil
	return s, nil
}

// restore gives the rendering its objects back, their facts to facts, and
// the parsed content of the kinds the cross-object rules read
// (keepsContent), as compact left them.
func (s *stored) restore(facts compacted) (*render.Result, error) {
	var objs []manifest.Object
	if err := gob.NewDecoder(flate.NewReader(bytes.NewReader(s.blob))).Decode(&objs); err != nil {
		return nil, err
	}
	for i := range objs {
		o := &objs[i]
		if s.facts[i] != nil {
			facts[o] = s.facts[i]
		}
		if keepsContent(o) {
			c, err := manifest.Decode(o.YAML)
			if err != nil {
				return nil, err
			}
			o.Content = c
		}
	}
	s.res.Objects = objs
	return s.res, nil
}
