package held

import (
	"errors"
	"io"
	"iter"
	"math"

	"github.com/repotool/repotool/internal/textpool"
)

// Blobs holds byte strings until they are read back, each as its pieces
// (a manifest's documents, say), each distinct piece once, compressed: in
// memory (NewBlobs: what may hold decrypted values) or in a temporary file
// removed as soon as it is made, where the system allows it
// (NewBlobsOnDisk: only what holds no secret value in plain text). Only
// the pieces' index stays in Go's memory.
type Blobs struct {
	pool *textpool.Pool
	// parts are every blob's pieces' IDs, one after the other, each as
	// its difference from the one before (textpool.AppendIDs): one list
	// for every blob, where 60,000 small lists would take more.
	parts []byte
}

// Blob is one byte string of a Blobs: 8 bytes.
type Blob struct{ first, span uint32 }

// NewBlobs holds blobs in memory, never on disk.
func NewBlobs() *Blobs { return &Blobs{pool: textpool.New()} }

// NewBlobsOnDisk holds blobs in a temporary file in dir ("" for the
// system's temporary folder).
func NewBlobsOnDisk(dir string) (*Blobs, error) {
	pool, err := textpool.NewFile(dir)
	if err != nil {
		return nil, err
	}
	return &Blobs{pool: pool}, nil
}

// errFull is a Blobs whose index would outgrow 32 bits: not reached (four
// gigabytes of pieces' IDs).
var errFull = errors.New("more blobs than a store holds")

// Put holds the blob made of pieces, in order.
func (b *Blobs) Put(pieces iter.Seq[[]byte]) (Blob, error) {
	var ids []textpool.ID
	for p := range pieces {
		id, err := b.pool.Put(p)
		if err != nil {
			return Blob{}, err
		}
		ids = append(ids, id)
	}
	if int64(len(b.parts))+5*int64(len(ids)) >= math.MaxUint32 { // an ID takes five bytes at most
		return Blob{}, errFull
	}
	x := Blob{first: uint32(len(b.parts))}
	b.parts = textpool.AppendIDs(b.parts, ids...)
	x.span = uint32(len(b.parts)) - x.first
	return x, nil
}

// Append appends blob x to dst, its pieces put together again.
func (b *Blobs) Append(dst []byte, x Blob) ([]byte, error) {
	ids, err := textpool.ReadIDs(b.parts[x.first:x.first+x.span], -1)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if dst, err = b.pool.Append(dst, id); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Close lets go of every blob, and of the temporary file of a Blobs on
// disk. b is not to be used after.
func (b *Blobs) Close() error { return b.pool.Close() }

// Output holds what a command prints until everything is ready, all or
// nothing: the renderings' streams, which may hold decrypted values, in
// memory, compressed, each distinct one once, and written in the order
// they were added.
type Output struct {
	blobs *Blobs
	order []Blob
}

// NewOutput is an empty Output. Close it when done.
func NewOutput() *Output { return &Output{blobs: NewBlobs()} }

// Add holds data, to be written after what was added before it.
func (o *Output) Add(data []byte) error {
	x, err := o.blobs.Put(func(yield func([]byte) bool) { yield(data) })
	if err != nil {
		return err
	}
	o.order = append(o.order, x)
	return nil
}

// WriteTo writes everything added, in order, to w.
func (o *Output) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var buf []byte
	for _, x := range o.order {
		var err error
		if buf, err = o.blobs.Append(buf[:0], x); err != nil {
			return n, err
		}
		k, err := w.Write(buf)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Close lets go of what o holds.
func (o *Output) Close() error { return o.blobs.Close() }
