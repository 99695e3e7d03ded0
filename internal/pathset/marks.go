package pathset

import "slices"

// Marks is a set of repository paths (what Files.Forget let go): those of
// the repository's listing (Files.Paths) as one bit each, over the
// listing's order, the others (a file asked for before the listing was
// made, or that it leaves out) in sorted runs. At 20,000 targets the
// listing holds some 137,000 paths: 17 KB of bits, where the runs took
// some 3 MB, and twice that while two of them merged.
type Marks struct {
	bits []uint64
	runs runSet
}

// Has reports whether m holds p; listing is the repository's, or nil
// before it is made.
func (m *Marks) Has(listing *Set, p string) bool {
	if listing != nil && len(m.bits) > 0 {
		if i, ok := listing.Index(p); ok && m.bits[i/64]&(1<<(i%64)) != 0 {
			return true
		}
	}
	return m.runs.has(p)
}

// Add adds ps, sorted and without repeats.
func (m *Marks) Add(listing *Set, ps []string) {
	var rest []string
	for _, p := range ps {
		i, ok := 0, false
		if listing != nil {
			i, ok = listing.Index(p)
		}
		if !ok {
			rest = append(rest, p)
			continue
		}
		if m.bits == nil {
			m.bits = make([]uint64, (listing.n+63)/64)
		}
		m.bits[i/64] |= 1 << (i % 64)
	}
	m.runs.add(rest)
}

// Paths are m's paths, sorted; listing is the one m was added to.
func (m *Marks) Paths(listing *Set) []string {
	out := m.runs.paths()
	if listing != nil {
		i := 0
		for p := range listing.All() {
			if i/64 < len(m.bits) && m.bits[i/64]&(1<<(i%64)) != 0 {
				out = append(out, p)
			}
			i++
		}
	}
	slices.Sort(out)
	return out
}

// Runs is how many sorted runs hold the paths outside the listing.
func (m *Marks) Runs() int { return len(m.runs.runs) }
