package layout

import (
	"encoding/binary"
	"iter"
	"slices"
	"sort"
	"strings"
)

// pathSet is a sorted set of repository paths, front-coded: each path is
// held as the length of what it shares with the one before and the rest
// of it, every restartEvery-th path whole, where a search starts. The
// paths of a repository share most of their length with the one before
// (namespaces/<ns>/templates/...): the 137,000 paths of the 20,000-target
// repository of scripts/bench-scale.sh, 7.1 MB of names (some 11 MB as a
// []string), take 2.7 MB. A Files keeps the repository's listing
// (Paths) and the files it forgot (Forget) in one each.
type pathSet struct {
	data   []byte // each path: shared (uvarint), len(rest) (uvarint), rest
	starts []int  // where every restartEvery-th path starts in data
	n      int
}

// restartEvery is how many paths follow one held whole: a search reads at
// most that many.
const restartEvery = 16

// packPaths is the set of ps, which must be sorted and without repeats.
func packPaths(ps []string) pathSet {
	var s pathSet
	prev := ""
	for i, p := range ps {
		shared := 0
		if i%restartEvery == 0 {
			s.starts = append(s.starts, len(s.data))
		} else {
			for shared < len(p) && shared < len(prev) && p[shared] == prev[shared] {
				shared++
			}
		}
		s.data = binary.AppendUvarint(s.data, uint64(shared))
		s.data = binary.AppendUvarint(s.data, uint64(len(p)-shared))
		s.data = append(s.data, p[shared:]...)
		prev = p
	}
	s.data = slices.Clip(s.data)
	s.n = len(ps)
	return s
}

// entry decodes the path at data[off:]: how much of the one before it
// shares, the rest of it, and where the next starts.
func (s *pathSet) entry(off int) (shared int, rest []byte, next int) {
	sh, n := binary.Uvarint(s.data[off:])
	off += n
	size, n := binary.Uvarint(s.data[off:])
	off += n
	return int(sh), s.data[off : off+int(size)], off + int(size)
}

// next decodes the path at data[off:] onto buf (holding the one before),
// returning it and where the next starts.
func (s *pathSet) next(buf []byte, off int) ([]byte, int) {
	shared, rest, next := s.entry(off)
	return append(buf[:shared], rest...), next
}

// has reports whether s holds p.
func (s *pathSet) has(p string) bool {
	// The last restart whose path is at most p, then the paths after it.
	k := sort.Search(len(s.starts), func(k int) bool { return string(s.whole(k)) > p }) - 1
	if k < 0 {
		return false
	}
	var buf []byte
	off := s.starts[k]
	for range min(restartEvery, s.n-k*restartEvery) {
		buf, off = s.next(buf, off)
		if c := strings.Compare(string(buf), p); c >= 0 {
			return c == 0
		}
	}
	return false
}

// whole is the k-th restart's path, which is held whole (it shares
// nothing).
func (s *pathSet) whole(k int) []byte {
	_, rest, _ := s.entry(s.starts[k])
	return rest
}

// all yields s's paths in order (each a new string).
func (s *pathSet) all() iter.Seq[string] {
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

// with is s and ps (sorted, without repeats) as one set.
func (s *pathSet) with(ps []string) pathSet {
	merged := make([]string, 0, s.n+len(ps))
	j := 0
	for p := range s.all() {
		for j < len(ps) && ps[j] < p {
			merged = append(merged, ps[j])
			j++
		}
		if j < len(ps) && ps[j] == p {
			j++
		}
		merged = append(merged, p)
	}
	return packPaths(append(merged, ps[j:]...))
}
