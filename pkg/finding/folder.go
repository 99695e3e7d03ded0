package finding

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"io"
	"slices"
)

// A Folder merges findings that differ only by target as they are added,
// so that the parts of a run (a shard's, a cluster's) are folded one
// after the other, each finding held once however many parts report it.
// The file and target names it holds are held once each: a run's
// findings name the same few thousand over and over. The rest of each
// finding (its message, object and related places: most of its size) is
// held encoded, in blocks compressed once full: lint at 20,000 targets
// folds some 35,000 findings, 40 MB as they are, while it checks the
// clusters one after the other. The zero Folder is empty and ready.
type Folder struct {
	index map[[sha256.Size]byte]int
	held  []heldFinding // by the order added
	names map[string]string
	// targets are the target names, each once; heldFinding.targets
	// index them (a run's findings name some 300,000 targets at 20,000).
	targets  []string
	targetID map[string]uint32
	// blocks are the full blocks, compressed; cur the one being filled.
	blocks [][]byte
	cur    bytes.Buffer
	enc    *gob.Encoder // into cur
	w      *flate.Writer
	key    []byte // Add's, reused
}

// heldFinding is what a Folder holds of a finding besides its encoding:
// the names it holds once, and its place.
type heldFinding struct {
	file, template string
	targets        []uint32 // in Folder.targets
	block          int      // in blocks; len(blocks) while in cur; -1: whole
	whole          *Finding // the finding, when it could not be encoded
}

// blockSize is the size of the encoded findings a Folder compresses at
// once: large enough for the likeness of one rule's messages to compress
// (some ten times), small enough that a small run compresses nothing.
const blockSize = 64 << 10

// name is s as the Folder holds it, the first string of its value added.
func (fo *Folder) name(s string) string {
	if held, ok := fo.names[s]; ok {
		return held
	}
	fo.names[s] = s
	return s
}

// target is the index of target name t in fo.targets.
func (fo *Folder) target(t string) uint32 {
	id, ok := fo.targetID[t]
	if !ok {
		id = uint32(len(fo.targets))
		fo.targetID[t] = id
		fo.targets = append(fo.targets, t)
	}
	return id
}

// Add adds f, or its targets to the finding added before that differs
// from it only by target.
func (fo *Folder) Add(f Finding) {
	if fo.index == nil {
		fo.index, fo.names, fo.targetID = map[[sha256.Size]byte]int{}, map[string]string{}, map[string]uint32{}
	}
	fo.key = f.appendKey(fo.key[:0])
	k := sha256.Sum256(fo.key)
	i, ok := fo.index[k]
	if !ok {
		i = len(fo.held)
		fo.index[k] = i
		fo.held = append(fo.held, heldFinding{file: fo.name(f.File), template: fo.name(f.Template), block: len(fo.blocks)})
		fo.hold(&fo.held[i], f)
	}
	for _, t := range f.Targets {
		fo.held[i].targets = append(fo.held[i].targets, fo.target(t))
	}
}

// hold encodes f, without what heldFinding holds, into the current block,
// compressing the block once full; h is f's record.
func (fo *Folder) hold(h *heldFinding, f Finding) {
	if fo.enc == nil {
		fo.cur.Reset()
		fo.enc = gob.NewEncoder(&fo.cur)
	}
	f.File, f.Template, f.Targets = "", "", nil
	n := fo.cur.Len()
	if err := fo.enc.Encode(&f); err != nil {
		// Not reached (its fields are strings, numbers and slices of
		// them): held as it is, the block ended where it was whole.
		fo.cur.Truncate(n)
		fo.pack()
		h.whole, h.block = &f, -1
		return
	}
	if fo.cur.Len() >= blockSize {
		fo.pack()
	}
}

// pack compresses the current block into blocks.
func (fo *Folder) pack() {
	var packed bytes.Buffer
	if fo.w == nil {
		fo.w, _ = flate.NewWriter(&packed, flate.BestSpeed) // the level is valid
	} else {
		fo.w.Reset(&packed)
	}
	fo.w.Write(fo.cur.Bytes()) // into memory: no error
	fo.w.Close()
	fo.blocks = append(fo.blocks, bytes.Clone(packed.Bytes()))
	fo.cur.Reset()
	fo.enc = nil
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
		case lost == nil || h.block != block:
			if h.block != block {
				block, lost = h.block, nil
				dec = gob.NewDecoder(fo.blockReader(block))
			}
			lost = dec.Decode(f)
		}
		if lost != nil && h.whole == nil {
			// Not reached: what was encoded and compressed here reads back.
			*f = Finding{Rule: "repotool", Severity: SeverityError,
				Message: fmt.Sprintf("a finding held in memory could not be read back (%v): repotool's own failure, to report as a bug", lost)}
		}
		f.File, f.Template, f.Targets = h.file, h.template, fo.targetNames(h.targets)
	}
	slices.SortFunc(out, compareFindings)
	return out
}

// blockReader reads block b, the current one when b is len(blocks).
func (fo *Folder) blockReader(b int) io.Reader {
	if b < len(fo.blocks) {
		return flate.NewReader(bytes.NewReader(fo.blocks[b]))
	}
	return bytes.NewReader(fo.cur.Bytes())
}

// targetNames are the names of ids, sorted, each once; nil for none.
func (fo *Folder) targetNames(ids []uint32) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for k, id := range ids {
		out[k] = fo.targets[id]
	}
	slices.Sort(out)
	return slices.Compact(out)
}
