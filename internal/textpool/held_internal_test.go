package textpool

import (
	"crypto/sha256"
	"strings"
	"testing"
)

// TestHeldCompressed: a pool holds a text compressed, in memory and in a
// file alike: a repetitive text in a tenth of its size.
func TestHeldCompressed(t *testing.T) {
	text := []byte(strings.Repeat("apiVersion: v1\nkind: ConfigMap\n", 4000))
	file, err := NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, p := range map[string]*Pool{"memory": New(), "file": file} {
		id, err := p.Put(text)
		if err != nil {
			t.Fatal(err)
		}
		held := p.texts[id]
		if n := int(held.n); n == 0 || n >= len(text)/10 {
			t.Errorf("%s: %d bytes held for a text of %d, want less than a tenth", name, n, len(text))
		}
	}
}

// TestIndex: texts whose sums share their first eight bytes are found
// apart, whichever goes first, and one let go leaves the others found.
func TestIndex(t *testing.T) {
	sum := func(first, rest byte) (s [sha256.Size]byte) {
		s[0], s[31] = first, rest
		return s
	}
	a, b, c, d := sum(1, 1), sum(1, 2), sum(1, 3), sum(2, 1) // a, b, c share their first eight bytes
	texts := []text{{sum: a}, {sum: b}, {sum: c}, {sum: d}}
	var x index
	for id, tx := range texts {
		if _, ok := x.find(tx.sum, texts); ok {
			t.Fatalf("text %d found before it was added", id)
		}
		x.add(tx.sum, ID(id))
	}
	found := func(want map[ID]bool) {
		t.Helper()
		for id, tx := range texts {
			got, ok := x.find(tx.sum, texts)
			if ok != want[ID(id)] || ok && got != ID(id) {
				t.Fatalf("text %d: found %v as %d, want found %v", id, ok, got, want[ID(id)])
			}
		}
	}
	found(map[ID]bool{0: true, 1: true, 2: true, 3: true})
	if len(x.first) != 2 || len(x.more) != 2 {
		t.Fatalf("%d by their first bytes, %d by their whole sum; want 2 and 2", len(x.first), len(x.more))
	}
	x.remove(a, 0)
	found(map[ID]bool{1: true, 2: true, 3: true})
	x.remove(c, 2)
	found(map[ID]bool{1: true, 3: true})
	x.add(a, 0) // its first bytes free again
	found(map[ID]bool{0: true, 1: true, 3: true})
	x.remove(b, 1)
	x.remove(d, 3)
	found(map[ID]bool{0: true})
}
