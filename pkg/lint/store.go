package lint

import (
	"bytes"
	"compress/flate"
	"io"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// A run checked a cluster at a time (lintByCluster) renders every target
// once, in chart order, and holds each rendering stored until its
// cluster's checks: the objects' YAML compressed in memory (never on
// disk), their parsed content let go (compact keeps the facts of the
// kinds the cross-object rules do not read; the others are parsed again
// when their cluster is checked), the stream dropped. A stored rendering
// takes a fraction of a parsed one.

// stored is a rendering held for its cluster's checks.
type stored struct {
	res  *render.Result
	blob []byte // the objects' YAML, one after another, compressed
	lens []int  // each object's YAML length
}

// store keeps res stored; res must not be read until restore.
func store(res *render.Result) (*stored, error) {
	s := &stored{res: res, lens: make([]int, len(res.Objects))}
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	for i := range res.Objects {
		o := &res.Objects[i]
		s.lens[i] = len(o.YAML)
		if _, err := w.Write(o.YAML); err != nil {
			return nil, err
		}
		o.YAML, o.Content = nil, nil
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	s.blob = bytes.Clone(buf.Bytes())
	res.Manifest = nil
	return s, nil
}

// restore gives the rendering its objects' YAML back, and the parsed
// content of the kinds the cross-object rules read (keepsContent), as
// compact left them.
func (s *stored) restore() (*render.Result, error) {
	total := 0
	for _, n := range s.lens {
		total += n
	}
	data := make([]byte, total)
	if _, err := io.ReadFull(flate.NewReader(bytes.NewReader(s.blob)), data); err != nil {
		return nil, err
	}
	for i := range s.res.Objects {
		o := &s.res.Objects[i]
		o.YAML, data = data[:s.lens[i]:s.lens[i]], data[s.lens[i]:]
		if keepsContent(o) {
			c, err := manifest.Decode(o.YAML)
			if err != nil {
				return nil, err
			}
			o.Content = c
		}
	}
	return s.res, nil
}
