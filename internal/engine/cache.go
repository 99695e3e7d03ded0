package engine

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"
	"text/template"
)

// parsedSet is a chart's templates parsed once: the root every rendering
// clones, or the message of the first template that does not parse (kept
// too, so that every target of a broken chart fails alike without a
// second parse).
type parsedSet struct {
	names []string // the templates, in parse order, to tell sets apart
	texts [][]byte
	size  int
	hash  uint64

	once    sync.Once
	root    *template.Template
	weights *weights
	err     error
}

// seed keys the hashes of template sets, within one process.
var seed = maphash.MakeSeed()

// parseCache keeps parsed sets, least recently used out first once their
// sources pass the size limit. Renderings that need one set at once wait
// for a single parse of it.
type parseCache struct {
	mu    sync.Mutex
	sets  map[uint64]*list.Element // of *parsedSet
	order list.List                // most recently used first
	bytes int
}

// get returns the parsed set of srcs, parsing it with the function library
// fm unless it is kept. A cache serves one library: an Engine's.
func (c *parseCache) get(srcs []source, limit int, fm template.FuncMap) *parsedSet {
	set := c.lookup(newSet(srcs), limit)
	set.once.Do(func() { set.root, set.weights, set.err = parse(srcs, fm) })
	return set
}

// newSet is the unparsed set of srcs, with its hash and size.
func newSet(srcs []source) *parsedSet {
	s := &parsedSet{names: make([]string, len(srcs)), texts: make([][]byte, len(srcs))}
	var h maphash.Hash
	h.SetSeed(seed)
	for i, src := range srcs {
		s.names[i], s.texts[i] = src.name, src.text
		s.size += len(src.name) + len(src.text)
		// name NUL text NUL: no two different sets hash the same sequence.
		h.WriteString(src.name)
		h.WriteByte(0)
		h.Write(src.text)
		h.WriteByte(0)
	}
	s.hash = h.Sum64()
	return s
}

// lookup returns the kept set equal to s, or s itself, kept if it fits
// within limit.
func (c *parseCache) lookup(s *parsedSet, limit int) *parsedSet {
	if limit == 0 {
		limit = DefaultCacheSize
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = map[uint64]*list.Element{}
	}
	if el, ok := c.sets[s.hash]; ok {
		if kept := el.Value.(*parsedSet); kept.same(s) {
			c.order.MoveToFront(el)
			return kept
		}
		return s // another set with the same hash: parse this one apart
	}
	if limit < 0 || s.size > limit {
		return s
	}
	c.sets[s.hash] = c.order.PushFront(s)
	c.bytes += s.size
	for c.bytes > limit {
		old := c.order.Remove(c.order.Back()).(*parsedSet)
		delete(c.sets, old.hash)
		c.bytes -= old.size
	}
	return s
}

func (s *parsedSet) same(o *parsedSet) bool {
	if len(s.names) != len(o.names) {
		return false
	}
	for i := range s.names {
		if s.names[i] != o.names[i] || !bytes.Equal(s.texts[i], o.texts[i]) {
			return false
		}
	}
	return true
}
