package textpool_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/repotool/repotool/internal/textpool"
)

// TestPool: a text put by several holders is held once and comes back
// byte for byte, for each, until the last takes it; Append does not let go;
// Pack and Unpack round-trip; an empty text is a text.
func TestPool(t *testing.T) {
	p := textpool.New()
	big := []byte(strings.Repeat("apiVersion: v1\nkind: ConfigMap\n", 4000))
	a1, err := p.Put(big)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := p.Put(bytes.Clone(big))
	b, _ := p.Put([]byte("other\n"))
	e, _ := p.Put(nil)
	if a1 != a2 || a1 == b || p.Len() != 3 {
		t.Fatalf("ids %d %d %d, %d texts held: want the same text once", a1, a2, b, p.Len())
	}
	for _, id := range []textpool.ID{a1, a1} {
		got, err := p.Append(nil, id)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("get: %v", err)
		}
	}
	for range 2 {
		got, err := p.Take(a1)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("take: %v", err)
		}
	}
	if _, err := p.Append(nil, a1); err == nil || p.Len() != 2 {
		t.Errorf("a text taken by its last holder is still held (%d texts)", p.Len())
	}
	if got, err := p.Take(e); err != nil || len(got) != 0 {
		t.Errorf("the empty text: %q %v", got, err)
	}
	packed, err := p.Pack(big)
	if err != nil || len(packed) >= len(big)/10 {
		t.Fatalf("pack: %d bytes of %d, %v", len(packed), len(big), err)
	}
	if got, err := p.Unpack(packed, len(big)); err != nil || !bytes.Equal(got, big) {
		t.Errorf("unpack: %v", err)
	}
}

// TestPoolConcurrent: holders on several goroutines (run with -race).
func TestPoolConcurrent(t *testing.T) {
	p := textpool.New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			text := []byte(strings.Repeat("x", 100+i%2))
			for range 50 {
				id, err := p.Put(text)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := p.Take(id); err != nil || !bytes.Equal(got, text) {
					t.Errorf("take: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if p.Len() != 0 {
		t.Errorf("%d texts held once every holder took its own", p.Len())
	}
}

// TestAppend: texts appended one after another make their concatenation.
func TestAppend(t *testing.T) {
	p := textpool.New()
	a, _ := p.Put([]byte("---\na: 1\n"))
	b, _ := p.Put([]byte("---\nb: 2\n"))
	out := []byte("#\n")
	for _, id := range []textpool.ID{a, b, a} {
		var err error
		if out, err = p.Append(out, id); err != nil {
			t.Fatal(err)
		}
	}
	if string(out) != "#\n---\na: 1\n---\nb: 2\n---\na: 1\n" {
		t.Errorf("%q", out)
	}
	if _, err := p.Append(nil, 99); err == nil {
		t.Error("a text never put was appended")
	}
}
