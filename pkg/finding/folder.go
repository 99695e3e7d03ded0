package finding

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"slices"
)

// A Folder merges findings that differ only by target as they are added,
// so that the parts of a run (a shard's, a cluster's) are folded one
// after the other, each finding held once however many parts report it.
// The file and target names it holds are held once each: a run's
// findings name the same few thousand over and over. The rest of each
// finding (its message, object and related places: most of its size) is
// held as it is until some 64 KiB of them wait, then gob-encoded and
// compressed together: lint at 20,000 targets folds some 35,000
// findings, 40 MB as they are, while it checks the clusters one after
// the other; a small run compresses nothing. The zero Folder is empty and
// ready.
type Folder struct {
	index map[[sha256.Size]byte]int
	held  []heldFinding // by the order added
	names map[string]string
	// blocks are the findings packed, compressed; waiting those held
	// whole (heldFinding.whole) since, waitingSize their size.
	blocks      [][]byte
	waiting     []int
	waitingSize int
	w           *flate.Writer
}

// heldFinding is what a Folder holds of a finding: the names it holds
// once, and the rest, whole or packed.
type heldFinding struct {
	file, template string
	targets        []string
	whole          *Finding // without file, template and targets; nil once packed
	block          int      // in blocks, once packed
}

// blockSize is the size of the findings a Folder packs at once: large
// enough for the likeness of one rule's messages to compress (some ten
// times), small enough that a small run packs nothing.
const blockSize = 64 << 10

// name is s as the Folder holds it, the first string of its value added.
func (fo *Folder) name(s string) string {
	if held, ok := fo.names[s]; ok {
		return held
	}
	fo.names[s] = s
	return s
}

// Add adds f, or its targets to the finding added before that differs
// from it only by target.
func (fo *Folder) Add(f Finding) {
	if fo.index == nil {
		fo.index, fo.names = map[[sha256.Size]byte]int{}, map[string]string{}
	}
	k := sha256.Sum256([]byte(f.key()))
	i, ok := fo.index[k]
	if !ok {
		i = len(fo.held)
		fo.index[k] = i
		whole := f
		whole.File, whole.Template, whole.Targets = "", "", nil
		fo.held = append(fo.held, heldFinding{file: fo.name(f.File), template: fo.name(f.Template), whole: &whole})
		fo.waiting = append(fo.waiting, i)
		fo.waitingSize += findingSize(&whole)
		if fo.waitingSize >= blockSize {
			fo.pack()
		}
	}
	for _, t := range f.Targets {
		fo.held[i].targets = append(fo.held[i].targets, fo.name(t))
	}
}

// findingSize is about the bytes of f's strings.
func findingSize(f *Finding) int {
	n := len(f.Rule) + len(f.Message) + len(f.Object) + len(f.Key)
	for _, r := range f.Related {
		n += len(r.File) + len(r.Object) + len(r.Target) + len(r.Message)
	}
	return n
}

// pack encodes the findings waiting and compresses them into a block.
func (fo *Folder) pack() {
	var enc, packed bytes.Buffer
	e := gob.NewEncoder(&enc)
	for _, i := range fo.waiting {
		if e.Encode(fo.held[i].whole) != nil {
			// Not reached (its fields are strings, numbers and slices of
			// them): they wait, whole, for the next block.
			fo.waitingSize = 0
			return
		}
	}
	if fo.w == nil {
		fo.w, _ = flate.NewWriter(&packed, flate.BestSpeed) // the level is valid
	} else {
		fo.w.Reset(&packed)
	}
	fo.w.Write(enc.Bytes()) // into memory: no error
	fo.w.Close()
	for _, i := range fo.waiting {
		fo.held[i].whole, fo.held[i].block = nil, len(fo.blocks)
	}
	fo.blocks = append(fo.blocks, bytes.Clone(packed.Bytes()))
	fo.waiting, fo.waitingSize = fo.waiting[:0], 0
}

// Findings are the findings added, merged, each one's targets sorted, in
// their printed order (never nil). Nothing is to be added after.
func (fo *Folder) Findings() []Finding {
	out := make([]Finding, len(fo.held))
	var dec *gob.Decoder
	var lost error
	block := -1
	for i, h := range fo.held {
		f := &out[i]
		switch {
		case h.whole != nil:
			*f = *h.whole
		case h.block != block:
			block = h.block
			dec = gob.NewDecoder(flate.NewReader(bytes.NewReader(fo.blocks[block])))
			lost = dec.Decode(f)
		case lost == nil:
			lost = dec.Decode(f)
		}
		if h.whole == nil && lost != nil {
			// Not reached: what was encoded and compressed here reads back.
			*f = Finding{Rule: "repotool", Severity: SeverityError,
				Message: fmt.Sprintf("a finding held in memory could not be read back (%v): repotool's own failure, to report as a bug", lost)}
		}
		f.File, f.Template, f.Targets = h.file, h.template, slices.Compact(slices.Sorted(slices.Values(h.targets)))
	}
	slices.SortFunc(out, compareFindings)
	return out
}
