package textpool

import (
	"crypto/sha256"
	"encoding/binary"
)

// index finds a held text by its SHA-256. A pool holds hundreds of
// thousands of texts (lint's stored renderings, hydrate's documents), and
// a map keyed by the whole sum takes some 60 bytes a text; keyed by its
// first eight bytes, some 20. Each text keeps its whole sum, so a text
// whose first eight bytes another held text has (for distinct texts, a
// chance of one in 2^64 a pair) goes into a second map, keyed by the
// whole sum: a lookup never confuses two texts.
type index struct {
	first map[uint64]ID
	more  map[[sha256.Size]byte]ID
}

func prefix(sum [sha256.Size]byte) uint64 { return binary.LittleEndian.Uint64(sum[:8]) }

// find returns the ID of the text whose sum is sum; texts is the pool's,
// by ID.
func (x *index) find(sum [sha256.Size]byte, texts []text) (ID, bool) {
	if id, ok := x.first[prefix(sum)]; ok && texts[id].sum == sum {
		return id, true
	}
	id, ok := x.more[sum]
	return id, ok
}

// add records id as the text whose sum is sum, which find does not hold.
func (x *index) add(sum [sha256.Size]byte, id ID) {
	if x.first == nil {
		x.first = map[uint64]ID{}
	}
	if _, taken := x.first[prefix(sum)]; !taken {
		x.first[prefix(sum)] = id
		return
	}
	if x.more == nil {
		x.more = map[[sha256.Size]byte]ID{}
	}
	x.more[sum] = id
}

// remove forgets id, the text whose sum is sum.
func (x *index) remove(sum [sha256.Size]byte, id ID) {
	if held, ok := x.first[prefix(sum)]; ok && held == id {
		delete(x.first, prefix(sum))
		return
	}
	delete(x.more, sum)
}
