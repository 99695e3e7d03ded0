package held

import (
	"encoding/binary"
	"errors"

	"github.com/repotool/repotool/internal/varenc"
	"github.com/repotool/repotool/pkg/manifest"
)

// A stored rendering's objects (without their texts) and their facts are
// encoded for the pool by hand: gob sent its type definitions with every
// rendering, and decoding them and the strings again took a fifth of what
// a 1,000-target cluster's restore allocated. The encoding is private to
// the process (the pool lives in memory): internal/varenc's counts, lines,
// columns and strings; per object its names and place, then its facts: a
// byte, 0 for none (its content was kept), else 1, their number (0 when
// every one is empty, as for most objects), and each as a count of words
// and the words.

// encode appends objs (their texts, parsed content and nodes left out:
// Put has let them go) and facts, one per object, to dst.
func encode(dst []byte, objs []manifest.Object, facts []Facts) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(objs)))
	for i := range objs {
		o := &objs[i]
		for _, s := range [...]string{o.APIVersion, o.Kind, o.Name, o.Namespace, o.Template, o.Source.File, o.Source.Member} {
			dst = varenc.AppendString(dst, s)
		}
		dst = binary.AppendVarint(dst, int64(o.Line))
		dst = binary.AppendVarint(dst, int64(o.Column))
		if facts[i] == nil {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		if facts[i].Empty() {
			dst = binary.AppendUvarint(dst, 0)
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(facts[i])))
		for _, words := range facts[i] {
			dst = binary.AppendUvarint(dst, uint64(len(words)))
			for _, w := range words {
				dst = varenc.AppendString(dst, w)
			}
		}
	}
	return dst
}

// errStored is a stored rendering that does not decode: not reached (the
// process encoded it in memory), and the run fails if it is.
var errStored = errors.New("stored rendering: its objects cannot be decoded")

// Names holds each name the objects restored together share once: their
// kinds, API versions, namespaces and sources, which would otherwise be
// strings of each object's own (a 1,000-target cluster restores some
// 15,000 objects).
type Names map[string]string

// decode decodes what encode encoded. The names objects share (API
// versions, kinds, namespaces, templates, sources) come from names, or
// are added to it; an empty list decodes as nil.
func decode(b []byte, names Names) ([]manifest.Object, []Facts, error) {
	d := decoder{Reader: varenc.Reader{B: b}, names: names}
	n := d.Count()
	var objs []manifest.Object
	var facts []Facts
	if n > 0 {
		objs, facts = make([]manifest.Object, n), make([]Facts, n)
	}
	for i := 0; i < n && d.Err == nil; i++ {
		o := &objs[i]
		o.APIVersion, o.Kind = d.shared(), d.shared()
		o.Name = d.Str()
		o.Namespace, o.Template, o.Source.File, o.Source.Member = d.shared(), d.shared(), d.shared(), d.shared()
		o.Line, o.Column = d.Varint(), d.Varint()
		switch d.Byte() {
		case 0:
			continue
		case 1:
		default:
			d.Err = errStored
			continue
		}
		k := d.Count()
		if k == 0 {
			facts[i] = Facts{} // most objects: no allocation of their own
			continue
		}
		facts[i] = make(Facts, k)
		for j := range facts[i] {
			if w := d.Count(); w > 0 {
				facts[i][j] = make([]string, w)
				for x := range facts[i][j] {
					facts[i][j][x] = d.Str()
				}
			}
		}
	}
	if d.Done() != nil {
		return nil, nil, errStored
	}
	return objs, facts, nil
}

// decoder reads encode's encoding (internal/varenc), the names objects
// share held once in names.
type decoder struct {
	varenc.Reader
	names Names
}

// shared is a string the objects share, held once in names.
func (d *decoder) shared() string {
	b := d.Bytes()
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}

// Facts are what a holder keeps of one object whose parsed content it let
// go: lists of words, one per fact it declares, in its own order. nil: the
// holder kept the object's content, and keeps no facts of it. Facts that
// are all empty may come back from a Store with none of their lists (a
// restored object with no facts takes no memory of its own for them).
type Facts [][]string

// Empty reports whether fs hold no words: nil, no lists, or every list
// empty.
func (fs Facts) Empty() bool {
	for _, words := range fs {
		if len(words) > 0 {
			return false
		}
	}
	return true
}
