package hydrate

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"iter"
	"sync"
)

// A hydration holds every file it makes until Sync, Commit or Check,
// since nothing may be written while a target fails: on 20,000 targets,
// more than half a gigabyte of manifests. So each file is held compressed
// (a rendered manifest takes a fifth of its size or less) and expanded
// one at a time, when it is compared or written.

// packed is a file of a Result: its path and its content, compressed.
type packed struct {
	path string
	data []byte
	size int
}

// packer compresses the files of a hydration, one at a time.
type packer struct {
	w   *flate.Writer
	buf bytes.Buffer
}

func newPacker() *packer {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return &packer{w: w}
}

func (p *packer) pack(f File) (packed, error) {
	p.buf.Reset()
	p.w.Reset(&p.buf)
	if _, err := p.w.Write(f.Data); err != nil {
		return packed{}, err
	}
	if err := p.w.Close(); err != nil {
		return packed{}, err
	}
	return packed{path: f.Path, data: bytes.Clone(p.buf.Bytes()), size: len(f.Data)}, nil
}

// readers are flate readers to reuse (each takes tens of kilobytes).
var readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// bytes is f's content, in a slice of its own.
func (f packed) bytes() ([]byte, error) {
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(f.data), nil); err != nil {
		return nil, err
	}
	out := make([]byte, f.size)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("hydrate: %s as held in memory: %w", f.path, err) // not reached: it was compressed here
	}
	return out, nil
}

// Files are the files res holds, sorted by path, each one's content
// expanded as it comes: a caller that keeps them all holds what res holds
// compressed.
func (res *Result) Files() iter.Seq2[File, error] {
	return func(yield func(File, error) bool) {
		for _, f := range res.files {
			data, err := f.bytes()
			if !yield(File{Path: f.path, Data: data}, err) {
				return
			}
		}
	}
}

// Len is the number of files res holds.
func (res *Result) Len() int { return len(res.files) }
