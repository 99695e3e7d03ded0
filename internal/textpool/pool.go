// Package textpool holds texts in memory compressed, each distinct text
// once however many holders put it, until its last holder lets it go:
// what a run keeps of many renderings until it needs them again (lint's
// stored renderings, checked a cluster at a time; hydrate's files, kept
// until they are written). The renderings of one chart on many clusters
// print most objects alike, and rendered YAML compresses several times.
// A Pool made by New writes nothing to disk (lint's renderings hold
// decrypted values): it keeps the compressed texts in memory off Go's
// heap (arena.go); one made by NewFile keeps them in a temporary file,
// for texts that are bound for the disk anyway (hydrate's files, which
// hold no secret value in plain text), and holds only their index in
// memory.
package textpool

import (
	"bytes"
	"cmp"
	"compress/flate"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
)

// ID names a text of a Pool.
type ID uint32

// A Pool holds texts. Its methods may be called from several goroutines.
type Pool struct {
	mu    sync.Mutex
	ids   index  // of the texts held
	texts []text // by ID; a text let go has no refs
	held  int
	mem   *arena // the compressed texts of a Pool made by New
	w     *flate.Writer
	buf   bytes.Buffer
	// file holds the compressed texts of a Pool made by NewFile, end
	// bytes of them; name is the file's to remove at Close where it could
	// not be removed while open.
	file   *os.File
	end    int64
	name   string
	closed bool
}

// text is a text held: its n compressed bytes at off in chunk of the
// pool's arena, or at off in its file.
type text struct {
	off   int64
	n     uint32
	size  uint32 // expanded
	refs  uint32
	chunk uint32
	sum   [sha256.Size]byte
}

// maxText bounds a text: its size, and its compressed size, are held in
// 32 bits. Rendered documents and files are bounded far below it by the
// limits on what is read.
const maxText = 1 << 31

// New returns an empty Pool. It makes one compressor for every text it
// holds: a flate writer takes most of a megabyte to make. Close gives
// its memory back; a Pool no longer used gives it back when it is
// collected.
func New() *Pool {
	p := newPool()
	p.mem = newArena()
	runtime.AddCleanup(p, func(a *arena) { _ = a.close() }, p.mem)
	return p
}

func newPool() *Pool {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return &Pool{w: w}
}

// NewFile returns an empty Pool that keeps the compressed texts in a new
// temporary file in dir (os.TempDir when empty), removed at once where
// the system allows it and at Close otherwise. Only texts that may be
// written to disk may be put in it.
func NewFile(dir string) (*Pool, error) {
	f, err := os.CreateTemp(dir, "repotool-pool-*")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for the texts held: %w; set TMPDIR to a folder that can be written", err)
	}
	p := newPool()
	p.file = f
	if err := os.Remove(f.Name()); err != nil {
		p.name = f.Name() // Windows: removed at Close
	}
	return p, nil
}

// Close lets go of every text, and of the file of a Pool made by NewFile.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.ids, p.texts, p.held, p.closed = index{}, nil, 0, true
	if p.mem != nil {
		return p.mem.close()
	}
	err := p.file.Close()
	if p.name != "" {
		err = cmp.Or(os.Remove(p.name), err)
	}
	p.file, p.name = nil, ""
	return err
}

// Put holds data for one more holder (compressed and copied the first
// time it is put) and returns its ID.
func (p *Pool) Put(data []byte) (ID, error) {
	if int64(len(data)) > maxText {
		return 0, fmt.Errorf("textpool: a text of %d bytes, more than the %d a pool holds", len(data), int64(maxText))
	}
	sum := sha256.Sum256(data)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, errors.New("textpool: the pool is closed")
	}
	id, ok := p.ids.find(sum, p.texts)
	if !ok {
		t, err := p.hold(data)
		if err != nil {
			return 0, err
		}
		t.sum = sum
		id = ID(len(p.texts))
		if int(id) != len(p.texts) {
			return 0, errors.New("textpool: the pool holds as many texts as its IDs can name")
		}
		p.ids.add(sum, id)
		p.texts = append(p.texts, t)
		p.held++
	}
	if p.texts[id].refs == math.MaxUint32 {
		return 0, errors.New("textpool: a text put more times than a pool counts")
	}
	p.texts[id].refs++
	return id, nil
}

// Append appends the text of id to dst and returns the result. Texts are
// expanded outside the pool's lock: several goroutines read at once (lint's
// schema checks, each object's text in turn).
func (p *Pool) Append(dst []byte, id ID) ([]byte, error) {
	p.mu.Lock()
	if err := p.isHeld(id); err != nil {
		p.mu.Unlock()
		return dst, err
	}
	t, file, mem := p.texts[id], p.file, p.mem
	var packed []byte
	if mem != nil {
		packed = mem.bytes(t.chunk, t.off, t.n)
		defer p.unpin(t.chunk)
	}
	p.mu.Unlock()
	if file != nil {
		packed = make([]byte, t.n)
		if _, err := file.ReadAt(packed, t.off); err != nil {
			return dst, fmt.Errorf("textpool: reading a text back: %w", err)
		}
	}
	n := len(dst)
	dst = slices.Grow(dst, int(t.size))[:n+int(t.size)]
	if err := expand(packed, dst[n:]); err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// unpin ends a read of chunk c of the arena.
func (p *Pool) unpin(c uint32) {
	p.mu.Lock()
	p.mem.unpin(c)
	p.mu.Unlock()
}

// Take returns the text of id, in a slice of its own, for one of its
// holders, letting the text go after the last.
func (p *Pool) Take(id ID) ([]byte, error) {
	data, err := p.Append(nil, id)
	if err != nil {
		return nil, err
	}
	return data, p.Release(id)
}

// Release lets go of the text of id for one of its holders, without
// reading it: after the last, the text goes.
func (p *Pool) Release(id ID) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.isHeld(id); err != nil {
		return err
	}
	p.drop(id)
	return nil
}

// isHeld says why id is not held, if it is not; p.mu is held.
func (p *Pool) isHeld(id ID) error {
	if int(id) >= len(p.texts) || p.texts[id].refs == 0 {
		return fmt.Errorf("textpool: text %d is not held", id) // not reached: callers ask for what they put
	}
	return nil
}

// drop lets go of id for one holder; p.mu is held and id is held.
func (p *Pool) drop(id ID) {
	t := &p.texts[id]
	if t.refs--; t.refs == 0 {
		p.ids.remove(t.sum, id)
		p.held--
		if p.mem != nil {
			p.mem.free(t.chunk, t.n)
			if p.mem.sparse() {
				p.compact()
			}
		}
	}
}

// compact moves the texts held in the arena's chunks at most half used
// into the chunk in hand, so that those chunks go; p.mu is held. A text
// that cannot move (no chunk could be mapped) stays where it is.
func (p *Pool) compact() {
	for id := range p.texts {
		t := &p.texts[id]
		if t.refs == 0 || !p.mem.sparseChunk(t.chunk) {
			continue
		}
		from := p.mem.chunks[t.chunk].mem[t.off : t.off+int64(t.n)]
		c, off, err := p.mem.put(from)
		if err != nil {
			return
		}
		p.mem.free(t.chunk, t.n)
		t.chunk, t.off = c, off
	}
}

// hold is data compressed, in memory or in the file; p.mu is held.
func (p *Pool) hold(data []byte) (text, error) {
	if err := p.compress(data); err != nil {
		return text{}, err
	}
	if p.file == nil {
		c, off, err := p.mem.put(p.buf.Bytes())
		if err != nil {
			return text{}, err
		}
		return text{chunk: c, off: off, n: uint32(p.buf.Len()), size: uint32(len(data))}, nil
	}
	t := text{off: p.end, n: uint32(p.buf.Len()), size: uint32(len(data))}
	if _, err := p.file.WriteAt(p.buf.Bytes(), p.end); err != nil {
		return text{}, fmt.Errorf("the temporary file of the texts held: %w; set TMPDIR to a folder with room", err)
	}
	p.end += int64(t.n)
	return t, nil
}

// Len is the number of distinct texts held.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// compress leaves data compressed in p.buf.
func (p *Pool) compress(data []byte) error {
	p.buf.Reset()
	p.w.Reset(&p.buf)
	if _, err := p.w.Write(data); err != nil {
		return err
	}
	return p.w.Close()
}

// decompressors are flate readers to reuse: one takes some 40 KB to make.
var decompressors = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// expand fills out with what packed expands to.
func expand(packed, out []byte) error {
	r := decompressors.Get().(io.ReadCloser)
	defer decompressors.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(packed), nil); err != nil {
		return err
	}
	if _, err := io.ReadFull(r, out); err != nil {
		return fmt.Errorf("textpool: a text as held: %w", err) // not reached: it was compressed here, unless its file was changed
	}
	return nil
}
