package lint

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A run checked a cluster at a time (lintByCluster) renders every target
// once, in chart order, and holds each rendering stored until its
// cluster's checks, in memory, never on disk: each object's text in a
// pool that holds every distinct text once, compressed (the targets of
// one chart on many clusters render most objects alike: on the generated
// repositories of scripts/bench-scale.sh, 6% of the text is distinct),
// the rest of the objects (names, sources, lines) encoded and compressed,
// their parsed content let go (compact keeps the facts of the kinds the
// cross-object rules do not read; the others are parsed again when their
// cluster is checked), the stream dropped. A stored rendering takes a
// fraction of a parsed one.

// stored is a rendering held for its cluster's checks.
type stored struct {
	res   *render.Result // without its objects and stream
	blob  []byte         // the objects without their text, gob-encoded and compressed
	texts []uint32       // each object's text in the pool
	facts []*objectFacts // compact's facts of each object, nil for none
}

// A textPool holds the object texts of the stored renderings, each
// distinct text once and compressed, until the last rendering holding it
// is restored. It also holds the one compressor and decompressor every
// stored rendering is made and read with: a flate writer takes most of a
// megabyte to make, and a run stores every target.
type textPool struct {
	ids   map[[sha256.Size]byte]uint32
	texts map[uint32]*pooledText
	next  uint32
	w     *flate.Writer
	r     io.ReadCloser // a flate.Resetter
	buf   bytes.Buffer
}

type pooledText struct {
	packed []byte // the text, compressed
	size   int
	sum    [sha256.Size]byte
	refs   int
}

func newTextPool() *textPool {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return &textPool{ids: map[[sha256.Size]byte]uint32{}, texts: map[uint32]*pooledText{}, w: w, r: flate.NewReader(bytes.NewReader(nil))}
}

// pack is data compressed, in a slice of its own.
func (p *textPool) pack(data []byte) ([]byte, error) {
	p.buf.Reset()
	p.w.Reset(&p.buf)
	if _, err := p.w.Write(data); err != nil {
		return nil, err
	}
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(p.buf.Bytes()), nil
}

// unpack is what pack made of packed: a reader of it.
func (p *textPool) unpack(packed []byte) io.Reader {
	_ = p.r.(flate.Resetter).Reset(bytes.NewReader(packed), nil) // flate's reader resets without error
	return p.r
}

// put holds text (compressed the first time) and returns its id.
func (p *textPool) put(text []byte) (uint32, error) {
	sum := sha256.Sum256(text)
	id, ok := p.ids[sum]
	if !ok {
		packed, err := p.pack(text)
		if err != nil {
			return 0, err
		}
		id = p.next
		p.next++
		p.ids[sum] = id
		p.texts[id] = &pooledText{packed: packed, size: len(text), sum: sum}
	}
	p.texts[id].refs++
	return id, nil
}

// take returns the text of id for one of its holders, in a slice of its
// own, letting the text go after the last holder.
func (p *textPool) take(id uint32) ([]byte, error) {
	t := p.texts[id]
	if t == nil {
		return nil, fmt.Errorf("stored rendering: object text %d is not held", id) // not reached: each is taken once
	}
	if t.refs--; t.refs == 0 {
		delete(p.texts, id)
		delete(p.ids, t.sum)
	}
	text := make([]byte, t.size)
	if _, err := io.ReadFull(p.unpack(t.packed), text); err != nil {
		return nil, fmt.Errorf("stored rendering: object text %d: %w", id, err) // not reached
	}
	return text, nil
}

// store keeps res stored, its objects' texts in texts and their facts
// taken out of facts; res must not be read until restore.
func store(res *render.Result, facts compacted, texts *textPool) (*stored, error) {
	s := &stored{res: res, facts: make([]*objectFacts, len(res.Objects)), texts: make([]uint32, len(res.Objects))}
	for i := range res.Objects {
		o := &res.Objects[i]
		s.facts[i] = facts[o]
		delete(facts, o)
		var err error
		if s.texts[i], err = texts.put(o.YAML); err != nil {
			return nil, err
		}
		o.Content, o.YAML = nil, nil
	}
	texts.buf.Reset()
	texts.w.Reset(&texts.buf)
	if err := gob.NewEncoder(texts.w).Encode(res.Objects); err != nil {
		return nil, err
	}
	if err := texts.w.Close(); err != nil {
		return nil, err
	}
	s.blob = bytes.Clone(texts.buf.Bytes())
	res.Objects, res.Manifest = nil, nil
	return s, nil
}

// restore gives the rendering its objects back, with their texts from
// texts, their facts to facts, and the parsed content of the kinds the
// cross-object rules read (keepsContent), as compact left them.
func (s *stored) restore(facts compacted, texts *textPool) (*render.Result, error) {
	var objs []manifest.Object
	if err := gob.NewDecoder(texts.unpack(s.blob)).Decode(&objs); err != nil {
		return nil, err
	}
	if len(objs) != len(s.texts) {
		return nil, fmt.Errorf("stored rendering: %d objects, %d texts", len(objs), len(s.texts)) // not reached
	}
	for i := range objs {
		o := &objs[i]
		text, err := texts.take(s.texts[i])
		if err != nil {
			return nil, err
		}
		o.YAML = text
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
