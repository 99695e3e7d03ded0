package textpool

import (
	"errors"
	"math"
)

// An arena holds the compressed texts of a Pool made by New off Go's
// heap, in chunks mapped from the system (offheap_unix.go; elsewhere on
// the heap): what a pool holds is what the process holds for it, where
// on Go's heap the collector lets a heap grow to twice what it holds
// before it collects, and the texts, of every size, leave spans partly
// used among the rendering's garbage. On the 20,000-target repository of
// scripts/bench-scale.sh, lint's peak is some 30 MB lower for it. The
// chunks are also left out of core dumps where the system allows it: a
// pool holds renderings with decrypted values.
//
// Texts are appended to the chunk in hand. A chunk goes back to the
// system once none of its texts is held and no reader is expanding one
// (pins): a text is read outside the pool's lock. When the chunks hold
// more than twice the bytes of the texts held (a pool whose texts come
// and go), the pool moves the texts of the chunks at most half used
// into the chunk in hand (Pool.compact), and those chunks go.
type arena struct {
	chunks []*chunk // by number; nil once gone
	cur    int      // the chunk texts are appended to; -1 when none
	mapped int      // bytes of the chunks not gone
	live   int      // bytes of the texts held
	err    error    // the first failure to give a chunk back
}

type chunk struct {
	mem  []byte
	used int // bytes appended
	live int // bytes of the texts held
	pins int // readers expanding a text of it
}

// chunkSize is the size of a chunk; a text of more than a quarter of it
// gets a chunk of its own. Pages of a chunk nothing was appended to yet
// take no memory.
const chunkSize = 1 << 20

func newArena() *arena { return &arena{cur: -1} }

// put appends b and returns the chunk and offset it is held at.
func (a *arena) put(b []byte) (uint32, int64, error) {
	if len(b) > chunkSize/4 {
		c, err := a.add(len(b))
		if err != nil {
			return 0, 0, err
		}
		return a.append(c, b), 0, nil
	}
	if a.cur < 0 || len(a.chunks[a.cur].mem)-a.chunks[a.cur].used < len(b) {
		prev := a.cur
		c, err := a.add(chunkSize)
		if err != nil {
			return 0, 0, err
		}
		a.cur = int(c)
		if prev >= 0 {
			a.maybeFree(prev)
		}
	}
	off := a.chunks[a.cur].used
	return a.append(uint32(a.cur), b), int64(off), nil
}

// add maps a chunk of n bytes.
func (a *arena) add(n int) (uint32, error) {
	if len(a.chunks) >= math.MaxUint32 {
		return 0, errors.New("textpool: more chunks than a pool numbers") // not reached: 4 PiB
	}
	mem, err := mapChunk(n)
	if err != nil {
		return 0, err
	}
	a.chunks = append(a.chunks, &chunk{mem: mem})
	a.mapped += len(mem)
	return uint32(len(a.chunks) - 1), nil
}

// append copies b to the end of chunk c, which has room for it.
func (a *arena) append(c uint32, b []byte) uint32 {
	ch := a.chunks[c]
	copy(ch.mem[ch.used:], b)
	ch.used += len(b)
	ch.live += len(b)
	a.live += len(b)
	return c
}

// bytes are the n bytes at off in chunk c, pinned: the caller reads them
// and unpins c.
func (a *arena) bytes(c uint32, off int64, n uint32) []byte {
	ch := a.chunks[c]
	ch.pins++
	return ch.mem[off : off+int64(n) : off+int64(n)]
}

// unpin ends a read of chunk c.
func (a *arena) unpin(c uint32) {
	a.chunks[c].pins--
	a.maybeFree(int(c))
}

// free lets go of n bytes held in chunk c.
func (a *arena) free(c uint32, n uint32) {
	a.chunks[c].live -= int(n)
	a.live -= int(n)
	a.maybeFree(int(c))
}

// maybeFree gives chunk c back once nothing in it is held or read, unless
// texts are still appended to it.
func (a *arena) maybeFree(c int) {
	ch := a.chunks[c]
	if ch == nil || ch.live > 0 || ch.pins > 0 || c == a.cur {
		return
	}
	a.mapped -= len(ch.mem)
	if err := unmapChunk(ch.mem); err != nil && a.err == nil {
		a.err = err
	}
	a.chunks[c] = nil
}

// sparse reports whether the chunks hold more than twice the texts held
// (and more than two chunks' worth): Pool.compact should move the texts
// of the chunks sparse says.
func (a *arena) sparse() bool {
	return a.mapped > 2*a.live+2*chunkSize
}

// sparseChunk reports whether the texts of chunk c should move: it is
// at most half used, and not the chunk in hand.
func (a *arena) sparseChunk(c uint32) bool {
	ch := a.chunks[c]
	return int(c) != a.cur && ch.live <= len(ch.mem)/2
}

// close gives back every chunk no reader is expanding a text of; those
// go when their readers are done.
func (a *arena) close() error {
	a.cur = -1
	for c, ch := range a.chunks {
		if ch == nil {
			continue
		}
		a.live -= ch.live
		ch.live = 0
		a.maybeFree(c)
	}
	return a.err
}
