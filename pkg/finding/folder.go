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
	// index finds a finding by the first half of its key's SHA-256 (128
	// bits: no two keys of one run share it, nor could a crafted input
	// find two that do); held[i] is the finding.
	index map[[keyHash]byte]int32
	held  []heldFinding // by the order added
	// names are the file and template names, each once, nameID their
	// places; targets and targetID the same of the target names (a run's
	// findings name some 300,000 targets at 20,000).
	names    []string
	nameID   map[string]uint32
	targets  []string
	targetID map[string]uint32
	// wholes are the findings that could not be encoded, by index.
	wholes map[int32]*Finding
	// blocks are the full blocks, compressed; cur the one being filled.
	blocks [][]byte
	cur    bytes.Buffer
	enc    *gob.Encoder // into cur
	w      *flate.Writer
	key    []byte // Add's, reused
}

// keyHash is how many bytes of a finding's key's SHA-256 a Folder keeps.
const keyHash = 16

// heldFinding is what a Folder holds of a finding besides its encoding:
// its file and template names and targets, as indexes, and its place (40
// bytes a finding, where the names and an int took 72).
type heldFinding struct {
	file, template uint32   // in Folder.names
	block          int32    // in blocks; len(blocks) while in cur; -1: in wholes
	targets        []uint32 // in Folder.targets
}

// blockSize is the size of the encoded findings a Folder compresses at
// once: large enough for the likeness of one rule's messages to compress
// (some ten times), small enough that a small run compresses nothing.
const blockSize = 64 << 10

// name is the index of s in fo.names.
func (fo *Folder) name(s string) uint32 {
	return intern(s, &fo.names, fo.nameID)
}

// target is the index of target name t in fo.targets.
func (fo *Folder) target(t string) uint32 {
	return intern(t, &fo.targets, fo.targetID)
}

// intern is the index of s in *list, added when ids does not have it.
func intern(s string, list *[]string, ids map[string]uint32) uint32 {
	id, ok := ids[s]
	if !ok {
		id = uint32(len(*list))
		ids[s] = id
		*list = append(*list, s)
	}
	return id
}

// Add adds f, or its targets to the finding added before that differs
// from it only by target.
func (fo *Folder) Add(f Finding) {
	if fo.index == nil {
		fo.index, fo.nameID, fo.targetID = map[[keyHash]byte]int32{}, map[string]uint32{}, map[string]uint32{}
	}
	fo.key = f.appendKey(fo.key[:0])
	sum := sha256.Sum256(fo.key)
	k := [keyHash]byte(sum[:keyHash])
	i, ok := fo.index[k]
	if !ok {
		i = int32(len(fo.held))
		fo.index[k] = i
		fo.held = append(fo.held, heldFinding{file: fo.name(f.File), template: fo.name(f.Template), block: int32(len(fo.blocks))})
		fo.hold(i, f)
	}
	h := &fo.held[i]
	for _, t := range f.Targets {
		h.targets = append(h.targets, fo.target(t))
	}
}

// hold encodes f, without what heldFinding holds, into the current block,
// compressing the block once full; held[i] is f's record.
func (fo *Folder) hold(i int32, f Finding) {
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
		if fo.wholes == nil {
			fo.wholes = map[int32]*Finding{}
		}
		fo.wholes[i], fo.held[i].block = &f, -1
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
// their printed order (never nil). Nothing is to be added after, and
// Findings is called once: it lets go of what it has read.
func (fo *Folder) Findings() []Finding {
	fo.index, fo.nameID, fo.targetID = nil, nil, nil // only Add reads them
	out := make([]Finding, len(fo.held))
	var dec *gob.Decoder
	var lost error
	block := int32(-1)
	for i, h := range fo.held {
		f := &out[i]
		whole := h.block < 0 // held as it is, in wholes
		switch {
		case whole:
			*f = *fo.wholes[int32(i)]
		case lost == nil || h.block != block:
			if h.block != block {
				if block >= 0 && int(block) < len(fo.blocks) {
					fo.blocks[block] = nil // read: findings are held in the order added
				}
				block, lost = h.block, nil
				dec = gob.NewDecoder(fo.blockReader(int(block)))
			}
			lost = dec.Decode(f)
		}
		if lost != nil && !whole {
			// Not reached: what was encoded and compressed here reads back.
			*f = Finding{Rule: "repotool", Severity: SeverityError,
				Message: fmt.Sprintf("a finding held in memory could not be read back (%v): repotool's own failure, to report as a bug", lost)}
		}
		f.File, f.Template, f.Targets = fo.names[h.file], fo.names[h.template], fo.targetNames(h.targets)
		fo.held[i].targets = nil
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
