package varenc_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/repotool/repotool/internal/varenc"
)

// encode writes a count, a signed number, a byte and two strings, as a
// caller of Reader would.
func encode(n int, sign int64, b byte, s1, s2 string) []byte {
	out := binary.AppendUvarint(nil, uint64(n))
	out = binary.AppendVarint(out, sign)
	out = append(out, b)
	return varenc.AppendString(varenc.AppendString(out, s1), s2)
}

// TestReader: what is written reads back; bytes cut short, a count larger
// than the bytes left, and bytes left over each fail with ErrDamaged, and
// every read after a failure gives zero.
func TestReader(t *testing.T) {
	b := encode(3, -42, 7, "kind", "")
	d := varenc.Reader{B: b}
	if n, v, c, s1, s2 := d.Count(), d.Varint(), d.Byte(), d.Str(), d.Str(); n != 3 || v != -42 || c != 7 || s1 != "kind" || s2 != "" || d.Done() != nil {
		t.Fatalf("read %d %d %d %q %q (%v)", n, v, c, s1, s2, d.Done())
	}
	for name, bad := range map[string][]byte{
		"cut short":     b[:len(b)-3],
		"count too big": binary.AppendUvarint(nil, 1000),
		"bytes left":    append(encode(3, -42, 7, "kind", ""), 0),
		"empty":         nil,
	} {
		d := varenc.Reader{B: bad}
		d.Count()
		d.Varint()
		d.Byte()
		d.Str()
		if s := d.Str(); s != "" || !errors.Is(d.Done(), varenc.ErrDamaged) {
			t.Errorf("%s: read %q, done %v, want ErrDamaged", name, s, d.Done())
		}
	}
}

// FuzzReader: written values read back, and any bytes read or fail
// without a panic, no count larger than the bytes.
func FuzzReader(f *testing.F) {
	f.Add(3, int64(-42), byte(7), "kind", "", []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, n int, sign int64, b byte, s1, s2 string, other []byte) {
		if n < 0 {
			n = -n
		}
		b2 := encode(n, sign, b, s1, s2)
		d := varenc.Reader{B: b2}
		d.Uvarint()
		if v, c, g1, g2 := d.Varint(), d.Byte(), d.Str(), d.Str(); int64(v) != sign || c != b || g1 != s1 || g2 != s2 || d.Done() != nil {
			t.Fatalf("read back otherwise (%v)", d.Done())
		}
		r := varenc.Reader{B: other}
		if k := r.Count(); k > len(other) {
			t.Fatalf("a count of %d from %d bytes", k, len(other))
		}
		r.Str()
		r.Varint()
		_ = r.Done()
	})
}
