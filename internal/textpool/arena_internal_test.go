package textpool

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
)

// incompressible is n random bytes: texts that take as much held as
// expanded, to fill chunks.
func incompressible(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestArenaChurn: texts put and let go in turn, a few kept all along,
// leave the chunks within twice the bytes held (and two chunks more):
// chunks whose texts all went are given back, and the texts of chunks
// at most half used move. Every text kept reads back as it was put.
func TestArenaChurn(t *testing.T) {
	p := New()
	defer p.Close()
	kept := map[ID][]byte{}
	for round := range 20 {
		var ids []ID
		for i := range 300 {
			text := incompressible(t, 1000+i)
			id, err := p.Put(text)
			if err != nil {
				t.Fatal(err)
			}
			if i%50 == 0 {
				kept[id] = text // one in fifty stays: every chunk keeps some
				continue
			}
			ids = append(ids, id)
		}
		for _, id := range ids {
			if err := p.Release(id); err != nil {
				t.Fatal(err)
			}
		}
		if a := p.mem; a.mapped > 2*a.live+3*chunkSize {
			t.Fatalf("round %d: %d bytes mapped for %d held", round, a.mapped, a.live)
		}
	}
	for id, want := range kept {
		got, err := p.Append(nil, id)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("text %d read back changed (%v)", id, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if p.mem.mapped != 0 {
		t.Errorf("%d bytes still mapped after Close", p.mem.mapped)
	}
}

// TestArenaPinned: a chunk a reader is expanding a text of stays mapped
// when its texts are let go, moved or the pool closed, until the read
// ends; a text of more than a quarter chunk has one of its own, which
// goes with it.
func TestArenaPinned(t *testing.T) {
	for _, how := range []string{"release", "close"} {
		t.Run(how, func(t *testing.T) {
			p := New()
			big, err := p.Put(incompressible(t, chunkSize/2))
			if err != nil {
				t.Fatal(err)
			}
			c := p.texts[big].chunk
			if n, want := len(p.mem.chunks[c].mem), int(p.texts[big].n); n != want {
				t.Fatalf("a large text's chunk has %d bytes, want its own %d", n, want)
			}
			p.mu.Lock()
			read := p.mem.bytes(c, p.texts[big].off, p.texts[big].n) // a reader, mid-way
			p.mu.Unlock()
			if how == "release" {
				err = p.Release(big)
			} else {
				err = p.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.mem.chunks[c] == nil || len(read) != len(p.mem.chunks[c].mem) {
				t.Fatal("a chunk went while a reader held it")
			}
			read[0]++ // still mapped: no fault
			p.unpin(c)
			if p.mem.chunks[c] != nil || p.mem.mapped != 0 {
				t.Errorf("the chunk stayed after its reader was done: %d bytes mapped", p.mem.mapped)
			}
		})
	}
}

// TestArenaConcurrentMoves: readers expand texts while other holders let
// theirs go and their chunks' texts move (run with -race): every read
// gives the text put.
func TestArenaConcurrentMoves(t *testing.T) {
	p := New()
	defer p.Close()
	const n = 600
	texts := make([][]byte, n)
	ids := make([]ID, n)
	for i := range texts {
		texts[i] = []byte(fmt.Sprintf("%d:%s", i, incompressible(t, 2000)))
		var err error
		if ids[i], err = p.Put(texts[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				if i%3 != 0 {
					if err := p.Release(ids[i]); err != nil {
						t.Error(err)
					}
					continue
				}
				for j := 0; j < n; j += 3 {
					got, err := p.Append(nil, ids[j])
					if err != nil || !bytes.Equal(got, texts[j]) {
						t.Errorf("text %d read back changed (%v)", j, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if a := p.mem; a.mapped > 2*a.live+3*chunkSize {
		t.Errorf("%d bytes mapped for %d held", a.mapped, a.live)
	}
}
