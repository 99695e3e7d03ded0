// Package pathset holds large sets of repository paths small: Set, a
// sorted set front-coded in one byte slice, searched without allocating;
// Marks, a set of paths held as bits over a listing Set, the others in
// sorted runs. layout's file index keeps the repository's listing and
// what it forgot in them.
package pathset

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
	"sort"
)

// Set is a sorted set of repository paths, front-coded: each path is
// held as the length of what it shares with the one before and the rest
// of it, every restartEvery-th path whole, where a search starts. The
// paths of a repository share most of their length with the one before
// (namespaces/<ns>/templates/...): the 137,000 paths of the 20,000-target
// repository of scripts/bench-scale.sh, 7.1 MB of names (some 11 MB as a
// []string), take 2.7 MB. layout's Files keeps the repository's
// listing (Paths) in one, and the files it forgot (Forget) that the
// listing does not hold in runs of them (Marks).
type Set struct {
	data   []byte // each path: shared (uvarint), len(rest) (uvarint), rest
	starts []int  // where every restartEvery-th path starts in data
	n      int
}

// Len is how many paths s holds.
func (s *Set) Len() int { return s.n }

// restartEvery is how many paths follow one held whole: a search reads at
// most that many.
const restartEvery = 16

// packer packs paths given in order, without repeats, into a Set.
type packer struct {
	s    Set
	prev []byte // the path added last
}

func (b *packer) add(p []byte) {
	shared := 0
	if b.s.n%restartEvery == 0 {
		b.s.starts = append(b.s.starts, len(b.s.data))
	} else {
		for shared < len(p) && shared < len(b.prev) && p[shared] == b.prev[shared] {
			shared++
		}
	}
	b.s.data = binary.AppendUvarint(b.s.data, uint64(shared))
	b.s.data = binary.AppendUvarint(b.s.data, uint64(len(p)-shared))
	b.s.data = append(b.s.data, p[shared:]...)
	b.prev = append(b.prev[:shared], p[shared:]...)
	b.s.n++
}

func (b *packer) done() Set {
	b.s.data, b.s.starts = slices.Clip(b.s.data), slices.Clip(b.s.starts)
	return b.s
}

// Pack is the set of ps, which must be sorted and without repeats.
func Pack(ps []string) Set {
	var b packer
	var scratch []byte
	for _, p := range ps {
		scratch = append(scratch[:0], p...)
		b.add(scratch)
	}
	return b.done()
}

// entry decodes the path at data[off:]: how much of the one before it
// shares, the rest of it, and where the next starts.
func (s *Set) entry(off int) (shared int, rest []byte, next int) {
	sh, n := binary.Uvarint(s.data[off:])
	off += n
	size, n := binary.Uvarint(s.data[off:])
	off += n
	return int(sh), s.data[off : off+int(size)], off + int(size)
}

// next decodes the path at data[off:] onto buf (holding the one before),
// returning it and where the next starts.
func (s *Set) next(buf []byte, off int) ([]byte, int) {
	shared, rest, next := s.entry(off)
	return append(buf[:shared], rest...), next
}

// compareTo compares b with s as strings.Compare does, without making
// either the other's type (Files.Get asks has for every entry it makes).
func compareTo(b []byte, s string) int {
	for i := range min(len(b), len(s)) {
		if b[i] != s[i] {
			if b[i] < s[i] {
				return -1
			}
			return 1
		}
	}
	return cmp.Compare(len(b), len(s))
}

// Has reports whether s holds p. It allocates nothing for a path of up
// to 256 bytes.
func (s *Set) Has(p string) bool {
	_, ok := s.Index(p)
	return ok
}

// Index is p's place in s's order, if s holds it.
func (s *Set) Index(p string) (int, bool) {
	// The last restart whose path is at most p, then the paths after it.
	k := sort.Search(len(s.starts), func(k int) bool { return compareTo(s.whole(k), p) > 0 }) - 1
	if k < 0 {
		return 0, false
	}
	var room [256]byte
	buf := room[:0]
	off := s.starts[k]
	for j := range min(restartEvery, s.n-k*restartEvery) {
		buf, off = s.next(buf, off)
		if c := compareTo(buf, p); c >= 0 {
			return k*restartEvery + j, c == 0
		}
	}
	return 0, false
}

// whole is the k-th restart's path, which is held whole (it shares
// nothing).
func (s *Set) whole(k int) []byte {
	_, rest, _ := s.entry(s.starts[k])
	return rest
}

// All yields s's paths in order (each a new string).
func (s *Set) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		var buf []byte
		off := 0
		for range s.n {
			buf, off = s.next(buf, off)
			if !yield(string(buf)) {
				return
			}
		}
	}
}

// cursor reads a Set's paths in order, each valid until the next.
type cursor struct {
	s      *Set
	i, off int
	buf    []byte
}

// path is the current path; ok is false past the last.
func (c *cursor) path() (p []byte, ok bool) { return c.buf, c.i <= c.s.n && c.i > 0 }

func (c *cursor) advance() {
	if c.i < c.s.n {
		c.buf, c.off = c.s.next(c.buf, c.off)
	}
	c.i++
}

// merge is a and b as one set, read and packed in one pass: no path is
// made a string, and the new set's bytes are sized at once.
func merge(a, b *Set) Set {
	out := packer{s: Set{data: make([]byte, 0, len(a.data)+len(b.data)), starts: make([]int, 0, (a.n+b.n)/restartEvery+1)}}
	ca, cb := cursor{s: a}, cursor{s: b}
	ca.advance()
	cb.advance()
	for {
		pa, oka := ca.path()
		pb, okb := cb.path()
		switch c := bytes.Compare(pa, pb); {
		case !oka && !okb:
			return out.done()
		case !okb || oka && c < 0:
			out.add(pa)
			ca.advance()
		case !oka || c > 0:
			out.add(pb)
			cb.advance()
		default: // the same path in both
			out.add(pa)
			ca.advance()
			cb.advance()
		}
	}
}

// runSet is a set of paths that grows by batches (what Files.Forget
// lets go, every 16,384 files of a scan): sorted runs, each packed and at
// most half the size of the one before it, the last two merged whenever a
// batch breaks that. A batch costs its own size and, over a run's life,
// each path is merged again some log2(paths/batch) times: merging every
// batch into one set re-packed the whole set each time (some 140,000
// paths, the strings and the list of them too, sixteen times in each of
// lint's scans at 20,000 targets).
type runSet struct{ runs []Set }

// has reports whether one of the runs holds p.
func (r *runSet) has(p string) bool {
	for i := range r.runs {
		if r.runs[i].Has(p) {
			return true
		}
	}
	return false
}

// add adds ps, sorted and without repeats.
func (r *runSet) add(ps []string) {
	if len(ps) == 0 {
		return
	}
	r.runs = append(r.runs, Pack(ps))
	for n := len(r.runs); n > 1 && 2*r.runs[n-1].n > r.runs[n-2].n; n = len(r.runs) {
		r.runs[n-2] = merge(&r.runs[n-2], &r.runs[n-1])
		r.runs = r.runs[:n-1]
	}
}

// paths are every run's paths, sorted, each once.
func (r *runSet) paths() []string {
	var out []string
	for i := range r.runs {
		out = append(out, slices.Collect(r.runs[i].All())...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
