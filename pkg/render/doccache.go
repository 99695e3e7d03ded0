package render

import (
	"hash/maphash"
	"sync"

	"github.com/repotool/repotool/pkg/manifest"
)

// maxCachedText bounds the text of the documents a docCache keeps parsed.
const maxCachedText = 4 << 20

// maxSeen bounds how many documents a docCache remembers having seen, in
// each of its two generations.
const maxSeen = 1 << 17

// docCache parses a rendered document once however many renderings print
// it: the targets of one chart on many clusters print most of their
// documents alike, and a diff renders most of them at both revisions. A
// document is kept parsed from its second sighting (the first leaves only
// its hash); each caller gets its own copy of the content. What it keeps
// is in two generations, the current and the one before: when the current
// is full (half of the text budget, or maxSeen hashes) it becomes the one
// before, and the one before is let go. Renderings come in chart order,
// so what is kept follows the charts in hand, and a run of any size holds
// at most the budget. A document found in the generation before is moved
// into the current. Safe for concurrent use.
type docCache struct {
	seed            maphash.Seed
	budget, seenCap int // the text budget of both generations; hashes in each
	mu              sync.Mutex
	seen, seenOld   map[uint64]struct{}
	parsed, old     map[string]map[string]any
	size            int // the text in parsed
}

func newDocCache() *docCache {
	return &docCache{seed: maphash.MakeSeed(), budget: maxCachedText, seenCap: maxSeen,
		seen: map[uint64]struct{}{}, parsed: map[string]map[string]any{}}
}

// decode is manifest.Decode of text, through the cache.
func (c *docCache) decode(text []byte) (map[string]any, error) {
	h := maphash.Bytes(c.seed, text)
	c.mu.Lock()
	content, hit := c.parsed[string(text)]
	if !hit {
		if content, hit = c.old[string(text)]; hit {
			c.keep(text, content)
		}
	}
	again := c.sawAgain(h)
	c.mu.Unlock()
	if hit {
		return manifest.CopyContent(content), nil
	}
	content, err := manifest.Decode(text)
	if err != nil || content == nil || !again {
		return content, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.parsed[string(text)]; ok || !c.keep(text, content) {
		return content, nil
	}
	return manifest.CopyContent(content), nil
}

// sawAgain records a sighting of the document of hash h, and reports
// whether it was seen before.
func (c *docCache) sawAgain(h uint64) bool {
	if _, ok := c.seen[h]; ok {
		return true
	}
	_, again := c.seenOld[h]
	if len(c.seen) >= c.seenCap {
		c.seenOld, c.seen = c.seen, map[uint64]struct{}{}
	}
	c.seen[h] = struct{}{}
	return again
}

// keep puts text's content in the current generation, starting a new one
// when it is full; a document over half the budget is not kept.
func (c *docCache) keep(text []byte, content map[string]any) bool {
	half := c.budget / 2
	if len(text) > half {
		return false
	}
	if c.size+len(text) > half {
		c.old, c.parsed, c.size = c.parsed, map[string]map[string]any{}, 0
	}
	c.parsed[string(text)] = content
	c.size += len(text)
	return true
}

// reset lets go of everything c keeps.
func (c *docCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen, c.seenOld, c.parsed, c.old, c.size = map[uint64]struct{}{}, nil, map[string]map[string]any{}, nil, 0
}

// ReleaseDocuments lets go of the rendered documents the Renderer keeps
// parsed (up to 4 MB of their text, some four times that parsed, and the
// hashes of those seen once), for a caller done rendering in bulk that
// keeps the Renderer for a few renderings more (lint, after its run's
// renderings: values-unused renders again): they parse their documents
// again. A Renderer made SharingWith another lets go of both's.
func (r *Renderer) ReleaseDocuments() { r.docs.reset() }
