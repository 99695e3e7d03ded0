// Package textpool holds texts in memory compressed, each distinct text
// once however many holders put it, until its last holder lets it go:
// what a run keeps of many renderings until it needs them again (lint's
// stored renderings, checked a cluster at a time; hydrate's files, kept
// until they are written). The renderings of one chart on many clusters
// print most objects alike, and rendered YAML compresses several times.
// Nothing is written to disk.
package textpool

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"fmt"
	"io"
	"slices"
	"sync"
)

// ID names a text of a Pool.
type ID uint32

// A Pool holds texts. Its methods may be called from several goroutines.
type Pool struct {
	mu    sync.Mutex
	ids   map[[sha256.Size]byte]ID // of the texts held
	texts []text                   // by ID; a text let go has no refs
	held  int
	w     *flate.Writer
	r     io.ReadCloser // a flate.Resetter
	buf   bytes.Buffer
}

type text struct {
	packed []byte
	size   int
	sum    [sha256.Size]byte
	refs   int
}

// New returns an empty Pool. It makes one compressor and one decompressor
// for every text it holds: a flate writer takes most of a megabyte to
// make.
func New() *Pool {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return &Pool{ids: map[[sha256.Size]byte]ID{}, w: w, r: flate.NewReader(bytes.NewReader(nil))}
}

// Put holds data for one more holder (compressed and copied the first
// time it is put) and returns its ID.
func (p *Pool) Put(data []byte) (ID, error) {
	sum := sha256.Sum256(data)
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.ids[sum]
	if !ok {
		packed, err := p.pack(data)
		if err != nil {
			return 0, err
		}
		id = ID(len(p.texts))
		p.ids[sum] = id
		p.texts = append(p.texts, text{packed: packed, size: len(data), sum: sum})
		p.held++
	}
	p.texts[id].refs++
	return id, nil
}

// Append appends the text of id to dst and returns the result.
func (p *Pool) Append(dst []byte, id ID) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.append(dst, id)
}

// Take returns the text of id, in a slice of its own, for one of its
// holders, letting the text go after the last.
func (p *Pool) Take(id ID) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	data, err := p.append(nil, id)
	if err != nil {
		return nil, err
	}
	t := &p.texts[id]
	if t.refs--; t.refs == 0 {
		delete(p.ids, t.sum)
		t.packed = nil
		p.held--
	}
	return data, nil
}

// append is Append; p.mu is held.
func (p *Pool) append(dst []byte, id ID) ([]byte, error) {
	if int(id) >= len(p.texts) || p.texts[id].refs == 0 {
		return dst, fmt.Errorf("textpool: text %d is not held", id) // not reached: callers ask for what they put
	}
	t := p.texts[id]
	n := len(dst)
	dst = slices.Grow(dst, t.size)[:n+t.size]
	if err := p.read(t.packed, dst[n:]); err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// Len is the number of distinct texts held.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// Pack is data compressed, for a caller that holds it itself (a text no
// other holder shares); Unpack gives it back.
func (p *Pool) Pack(data []byte) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pack(data)
}

// Unpack is the data of size bytes that Pack made packed of.
func (p *Pool) Unpack(packed []byte, size int) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unpack(packed, size)
}

func (p *Pool) pack(data []byte) ([]byte, error) {
	p.buf.Reset()
	p.w.Reset(&p.buf)
	if _, err := p.w.Write(data); err != nil {
		return nil, err
	}
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(p.buf.Bytes()), nil
}

func (p *Pool) unpack(packed []byte, size int) ([]byte, error) {
	out := make([]byte, size)
	return out, p.read(packed, out)
}

// read fills out with what packed expands to.
func (p *Pool) read(packed, out []byte) error {
	if err := p.r.(flate.Resetter).Reset(bytes.NewReader(packed), nil); err != nil {
		return err
	}
	if _, err := io.ReadFull(p.r, out); err != nil {
		return fmt.Errorf("textpool: a text as held in memory: %w", err) // not reached: it was compressed here
	}
	return nil
}
