package hydrate

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"iter"
	"math"

	"github.com/repotool/repotool/internal/fsutil"
)

// A hydration holds every file it makes until Sync, Commit or Check,
// since nothing may be written while a target fails: on 20,000 targets,
// more than half a gigabyte of manifests. So each file is held as its
// documents (each starting at a line "---"), each distinct document once
// in a pool, compressed (internal/textpool): a chart's targets on many
// clusters print most documents alike. The pool keeps them in a temporary
// file, removed as soon as it is made (where the system allows it; at
// Close otherwise), and only their index in memory: the files hold no
// secret value in plain text (checkSecrets refuses a rendering that would
// write one before its files are made), and they are bound for the disk.
// A file is put together again, one at a time, when it is compared or
// written.

// packed is a file of a Result: its path, and its content as the
// documents of the pool that make it up, in order: the Result's parts
// from first, n of them (one list for every file: 60,000 files would
// otherwise be 60,000 small lists).
type packed struct {
	path     string
	first, n uint32
	size     int
	sum      [sha256.Size]byte // of the content
}

// in reports whether fsys holds f's content at f's path.
func (f packed) in(fsys fs.FS) bool {
	old, err := fsutil.ReadFile(fsys, f.path, int64(f.size)+1)
	return err == nil && len(old) == f.size && sha256.Sum256(old) == f.sum
}

// add holds f.
func (res *Result) add(f File) error {
	if int64(len(res.parts))+int64(len(f.Data)) >= math.MaxUint32 { // a document is a line at least
		return errors.New("hydrate: more documents than a result holds") // not reached: four billion
	}
	p := packed{path: f.Path, first: uint32(len(res.parts)), size: len(f.Data), sum: sha256.Sum256(f.Data)}
	for doc := range documents(f.Data) {
		id, err := res.pool.Put(doc)
		if err != nil {
			return err
		}
		res.parts = append(res.parts, id)
		p.n++
	}
	res.files = append(res.files, p)
	return nil
}

// documents are data cut before each line that starts with "---": put
// back together, data byte for byte.
func documents(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		start := 0
		for i := 1; i < len(data); i++ {
			if data[i-1] == '\n' && bytes.HasPrefix(data[i:], []byte("---")) {
				if !yield(data[start:i]) {
					return
				}
				start = i
			}
		}
		if start < len(data) {
			yield(data[start:])
		}
	}
}

// bytes is f's content, in a slice of its own.
func (res *Result) bytes(f packed) ([]byte, error) {
	out := make([]byte, 0, f.size)
	for _, id := range res.parts[f.first : f.first+f.n] {
		var err error
		if out, err = res.pool.Append(out, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Files are the files res holds, sorted by path, each one's content put
// together as it comes: a caller that keeps them all holds more than res
// does.
func (res *Result) Files() iter.Seq2[File, error] {
	return func(yield func(File, error) bool) {
		for _, f := range res.files {
			data, err := res.bytes(f)
			if !yield(File{Path: f.path, Data: data}, err) {
				return
			}
		}
	}
}

// Len is the number of files res holds.
func (res *Result) Len() int { return len(res.files) }

// Close lets go of the files res holds, and of the temporary file their
// documents are kept in. res is not to be used after.
func (res *Result) Close() error { return res.pool.Close() }

// reader reads f when called.
func (res *Result) reader(f packed) func() ([]byte, error) {
	return func() ([]byte, error) { return res.bytes(f) }
}
