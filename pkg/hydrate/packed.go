package hydrate

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/held"
)

// A hydration holds every file it makes until Sync, Commit or Check,
// since nothing may be written while a target fails: on 20,000 targets,
// more than half a gigabyte of manifests. So each file is held as its
// documents (each starting at a line "---"), each distinct document once
// in a pool, compressed (held.Blobs, on disk): a chart's targets on many
// clusters print most documents alike. The pool keeps them in a temporary
// file, removed as soon as it is made (where the system allows it; at
// Close otherwise), and only their index in memory: the files hold no
// secret value in plain text (checkSecrets refuses a rendering that would
// write one before its files are made), and they are bound for the disk.
// A file is put together again, one at a time, when it is compared or
// written.

// packed is a file of a Result: its path, as its folder and its name
// (the Result's dirs and names: a target's folder holds three files, and
// every folder the same three names), and its content, as a blob of its
// documents (held.Blobs, which keeps one list of every blob's documents:
// 60,000 files would otherwise be 60,000 small lists), its size, and the
// SHA-256 of its content, to
// tell the output's file unchanged without putting it together (the
// whole digest: a shorter one two crafted renderings could share). 52
// bytes a file, where a path and its record took over 100.
type packed struct {
	dir, name uint32
	blob      held.Blob
	size      uint32
	sum       [sha256.Size]byte
}

// maxHeld bounds what a Result holds: its files' sizes, in 32 bits. Rendered files are bounded far below it by the limits on
// what is read.
const maxHeld = math.MaxUint32

// path is f's path.
func (res *Result) path(f packed) string {
	if d := res.dirs[f.dir]; d != "" {
		return d + "/" + res.names[f.name]
	}
	return res.names[f.name]
}

// paths are files' paths.
func (res *Result) paths(files []packed) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = res.path(f)
	}
	return out
}

// in reports whether fsys holds f's content at f's path.
func (res *Result) in(fsys fs.FS, f packed) bool {
	old, err := fsutil.ReadFile(fsys, res.path(f), int64(f.size)+1)
	return err == nil && len(old) == int(f.size) && sha256.Sum256(old) == f.sum
}

// add holds f.
func (res *Result) add(f File) error {
	if int64(len(f.Data)) >= maxHeld {
		return fmt.Errorf("hydrate %s: more than the %d bytes a result holds", f.Path, int64(maxHeld)) // not reached: four gigabytes
	}
	dir, name := "", f.Path
	if i := strings.LastIndexByte(f.Path, '/'); i >= 0 {
		dir, name = f.Path[:i], f.Path[i+1:]
	}
	p := packed{dir: res.dirIndex(dir), name: res.nameIndex(name), size: uint32(len(f.Data)), sum: sha256.Sum256(f.Data)}
	var err error
	if p.blob, err = res.blobs.Put(documents(f.Data)); err != nil {
		return fmt.Errorf("hydrate %s: %w", f.Path, err)
	}
	res.files = append(res.files, p)
	return nil
}

// dirIndex is the index of folder d in res.dirs, a copy of d added when
// it is not the last folder added: a folder's files come one after the
// other.
func (res *Result) dirIndex(d string) uint32 {
	if n := len(res.dirs); n > 0 && res.dirs[n-1] == d {
		return uint32(n - 1)
	}
	res.dirs = append(res.dirs, strings.Clone(d))
	return uint32(len(res.dirs) - 1)
}

// nameIndex is the index of name in res.names, a copy of name added when
// it is not there: a handful of names (hydrate.go's constants).
func (res *Result) nameIndex(name string) uint32 {
	if i := slices.Index(res.names, name); i >= 0 {
		return uint32(i)
	}
	res.names = append(res.names, strings.Clone(name))
	return uint32(len(res.names) - 1)
}

// compare orders a and b by path, as strings.Compare orders their paths,
// without putting the paths together.
func (res *Result) compare(a, b packed) int {
	return compareJoined(res.joined(a), res.joined(b))
}

// joined is f's path in pieces: folder, "/" and name, or the name alone.
func (res *Result) joined(f packed) [3]string {
	if d := res.dirs[f.dir]; d != "" {
		return [3]string{d, "/", res.names[f.name]}
	}
	return [3]string{res.names[f.name]}
}

// compareJoined is strings.Compare of a's pieces joined and b's joined.
func compareJoined(a, b [3]string) int {
	i, j := 0, 0
	as, bs := a[0], b[0]
	for {
		for as == "" && i < len(a)-1 {
			i++
			as = a[i]
		}
		for bs == "" && j < len(b)-1 {
			j++
			bs = b[j]
		}
		if as == "" || bs == "" {
			return cmp.Compare(len(as), len(bs)) // one ended: it is the smaller, or both did
		}
		n := min(len(as), len(bs))
		if c := strings.Compare(as[:n], bs[:n]); c != 0 {
			return c
		}
		as, bs = as[n:], bs[n:]
	}
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
	return res.blobs.Append(make([]byte, 0, f.size), f.blob)
}

// Files are the files res holds, sorted by path, each one's content put
// together as it comes: a caller that keeps them all holds more than res
// does.
func (res *Result) Files() iter.Seq2[File, error] {
	return func(yield func(File, error) bool) {
		for _, f := range res.files {
			data, err := res.bytes(f)
			if !yield(File{Path: res.path(f), Data: data}, err) {
				return
			}
		}
	}
}

// Len is the number of files res holds.
func (res *Result) Len() int { return len(res.files) }

// Close lets go of the files res holds, and of the temporary file their
// documents are kept in. res is not to be used after.
func (res *Result) Close() error { return res.blobs.Close() }

// reader reads f when called.
func (res *Result) reader(f packed) func() ([]byte, error) {
	return func() ([]byte, error) { return res.bytes(f) }
}
