package lint

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
// the run (the pool lives in memory): internal/varenc's counts, lines and
// columns and strings, and per object one byte of flags.

const (
	heldKept      = 1 << iota // heldFacts.Kept
	heldSOPSValue             // heldFacts.SOPSValue
)

// encodeHeld appends objs (their texts, parsed content and nodes left
// out: store has let them go) and their facts to dst.
func encodeHeld(dst []byte, objs []manifest.Object, facts []heldFacts) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(objs)))
	for i := range objs {
		o, f := &objs[i], &facts[i]
		for _, s := range [...]string{o.APIVersion, o.Kind, o.Name, o.Namespace, o.Template, o.Source.File, o.Source.Member} {
			dst = varenc.AppendString(dst, s)
		}
		dst = binary.AppendVarint(dst, int64(o.Line))
		dst = binary.AppendVarint(dst, int64(o.Column))
		var flags byte
		if f.Kept {
			flags |= heldKept
		}
		if f.SOPSValue {
			flags |= heldSOPSValue
		}
		dst = append(dst, flags)
		dst = binary.AppendUvarint(dst, uint64(len(f.Uses)))
		for _, u := range f.Uses {
			dst = varenc.AppendString(varenc.AppendString(dst, u[0]), u[1])
		}
		dst = binary.AppendUvarint(dst, uint64(len(f.JobWords)))
		for _, w := range f.JobWords {
			dst = varenc.AppendString(dst, w)
		}
		dst = binary.AppendUvarint(dst, uint64(len(f.Deprecated)))
		for _, d := range f.Deprecated {
			dst = binary.AppendVarint(dst, int64(d))
		}
	}
	return dst
}

// errHeld is a stored rendering that does not decode: not reached (the
// run encoded it in memory), and the run fails if it is.
var errHeld = errors.New("stored rendering: its objects cannot be decoded")

// decodeHeld decodes what encodeHeld encoded. The names objects share
// (API versions, kinds, namespaces, templates, sources) come from names,
// or are added to it, so that a cluster's objects hold each once; an empty
// list decodes as nil.
func decodeHeld(b []byte, names interned) (heldObjects, error) {
	d := heldDecoder{Reader: varenc.Reader{B: b}, names: names}
	n := d.Count()
	var out heldObjects
	if n > 0 {
		out.Objects, out.Facts = make([]manifest.Object, n), make([]heldFacts, n)
	}
	for i := 0; i < n && d.Err == nil; i++ {
		o, f := &out.Objects[i], &out.Facts[i]
		o.APIVersion, o.Kind = d.shared(), d.shared()
		o.Name = d.Str()
		o.Namespace, o.Template, o.Source.File, o.Source.Member = d.shared(), d.shared(), d.shared(), d.shared()
		o.Line, o.Column = d.Varint(), d.Varint()
		flags := d.Byte()
		f.Kept, f.SOPSValue = flags&heldKept != 0, flags&heldSOPSValue != 0
		if k := d.Count(); k > 0 {
			f.Uses = make([][2]string, k)
			for j := range f.Uses {
				f.Uses[j] = [2]string{d.Str(), d.Str()}
			}
		}
		if k := d.Count(); k > 0 {
			f.JobWords = make([]string, k)
			for j := range f.JobWords {
				f.JobWords[j] = d.Str()
			}
		}
		if k := d.Count(); k > 0 {
			f.Deprecated = make([]int, k)
			for j := range f.Deprecated {
				f.Deprecated[j] = d.Varint()
			}
		}
	}
	if d.Done() != nil {
		return heldObjects{}, errHeld
	}
	return out, nil
}

// heldDecoder reads encodeHeld's encoding (internal/varenc), the names
// objects share held once in names.
type heldDecoder struct {
	varenc.Reader
	names interned
}

// shared is a string the cluster's objects share, held once in names.
func (d *heldDecoder) shared() string {
	b := d.Bytes()
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}
