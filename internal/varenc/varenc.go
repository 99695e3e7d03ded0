// Package varenc reads and writes what a run encodes for itself, in
// memory, by hand: counts and lengths as unsigned varints, numbers as
// signed ones, each string as its length and bytes. lint encodes its
// stored renderings' objects this way (gob sent its type definitions with
// every one), and render a held rendering's decrypted strings. The bytes
// never leave the process, so there is no version and no framing; a
// Reader still checks every count and length against what is left, so
// that damaged bytes fail rather than allocate or panic.
package varenc

import (
	"encoding/binary"
	"errors"
)

// AppendString appends s to dst as its length and bytes.
func AppendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// ErrDamaged is what a Reader fails with.
var ErrDamaged = errors.New("varenc: the bytes end early or hold a count larger than what is left of them")

// A Reader reads B from its start. Err is set, and every later read gives
// zero, once the bytes end early or hold a count larger than what is left
// of them.
type Reader struct {
	B   []byte
	Err error
}

// Uvarint reads an unsigned varint.
func (d *Reader) Uvarint() uint64 {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Err = ErrDamaged
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Count reads a count or length, no larger than the bytes left (each
// element takes at least one): what it sizes cannot outgrow the bytes.
func (d *Reader) Count() int {
	v := d.Uvarint()
	if v > uint64(len(d.B)) {
		d.Err = ErrDamaged
		return 0
	}
	return int(v)
}

// Varint reads a signed varint.
func (d *Reader) Varint() int {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Err = ErrDamaged
		return 0
	}
	d.B = d.B[n:]
	return int(v)
}

// Byte reads one byte.
func (d *Reader) Byte() byte {
	if d.Err != nil || len(d.B) == 0 {
		d.Err = ErrDamaged
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Bytes reads a string AppendString wrote, as the bytes of B it takes.
func (d *Reader) Bytes() []byte {
	n := d.Count()
	if d.Err != nil {
		return nil
	}
	s := d.B[:n]
	d.B = d.B[n:]
	return s
}

// Str reads a string AppendString wrote, as a string of its own.
func (d *Reader) Str() string { return string(d.Bytes()) }

// Done is Err, or ErrDamaged when bytes are left: what was read was not
// all that was written.
func (d *Reader) Done() error {
	if d.Err == nil && len(d.B) != 0 {
		return ErrDamaged
	}
	return d.Err
}
