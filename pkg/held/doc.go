// Package held holds renderings for later, in memory, never on disk: what
// a run keeps of every target's rendering while it works on others. It is
// the memory tier of repotool's store of renderings: each object's text in
// a pool that holds every distinct text once, compressed
// (internal/textpool: the targets of one chart on many clusters render
// most objects alike), the rest of each object (names, sources, lines)
// and the facts its holder keeps of it encoded in the pool too (codec.go),
// the rendering's own state as render's Hold leaves it (render.Held).
//
// Run is the schedule a linter of many clusters needs (lint's run a
// cluster at a time): every target rendered once, in chart order, and
// stored; then each cluster's renderings given back, checked by the
// caller, and let go before the next cluster's.
//
// The package knows objects, texts and lists of words; it knows no rule.
// A holder that lets go of an object's parsed content keeps what it needs
// of it as Facts, which Store keeps beside the object and gives back.
package held
