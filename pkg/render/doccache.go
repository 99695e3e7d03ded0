package render

import (
	"hash/maphash"
	"sync"

	"github.com/repotool/repotool/pkg/manifest"
)

// maxCachedText bounds the text of the documents a docCache keeps parsed.
const maxCachedText = 4 << 20

// maxSeen bounds how many documents a docCache remembers having seen.
const maxSeen = 1 << 20

// docCache parses a rendered document once however many renderings print
// it: the targets of one chart on many clusters print most of their
// documents alike, and a diff renders most of them at both revisions. A
// document is kept parsed from its second sighting (the first leaves only
// its hash), within maxCachedText; each caller gets its own copy of the
// content. Safe for concurrent use.
type docCache struct {
	seed   maphash.Seed
	mu     sync.Mutex
	seen   map[uint64]bool
	parsed map[string]map[string]any
	size   int
}

func newDocCache() *docCache {
	return &docCache{seed: maphash.MakeSeed(), seen: map[uint64]bool{}, parsed: map[string]map[string]any{}}
}

// decode is manifest.Decode of text, through the cache.
func (c *docCache) decode(text []byte) (map[string]any, error) {
	h := maphash.Bytes(c.seed, text)
	c.mu.Lock()
	content, hit := c.parsed[string(text)]
	again := c.seen[h]
	if !again && len(c.seen) < maxSeen {
		c.seen[h] = true
	}
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
	if _, ok := c.parsed[string(text)]; !ok && c.size+len(text) <= maxCachedText {
		c.parsed[string(text)] = content
		c.size += len(text)
		return manifest.CopyContent(content), nil
	}
	return content, nil
}
