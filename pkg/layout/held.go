package layout

import (
	"container/list"
	"sync"
)

// held is what a Files keeps of its files (their bytes, or their parsed
// documents), within a budget of bytes, least recently used out first.
type held struct {
	budget int
	mu     sync.Mutex
	size   int
	order  list.List // of *heldFile, most recently used first
	at     map[*File]*list.Element
}

type heldFile struct {
	file *File
	size int
	drop func()
}

// keep holds what f has just made (size bytes; drop lets it go), letting
// the least recently used go to stay within the budget. What is larger
// than the budget is let go at once, once its caller has it.
func (h *held) keep(f *File, size int, drop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at == nil {
		h.at = map[*File]*list.Element{}
	}
	if el, ok := h.at[f]; ok { // made again after it was let go? keep the newest
		h.size -= el.Value.(*heldFile).size
		h.order.Remove(el)
	}
	h.at[f] = h.order.PushFront(&heldFile{file: f, size: size, drop: drop})
	h.size += size
	for h.size > h.budget && h.order.Len() > 0 {
		h.remove(h.order.Back())
	}
}

// remove lets go of the file held at el; h.mu is held.
func (h *held) remove(el *list.Element) {
	v := el.Value.(*heldFile)
	h.order.Remove(el)
	delete(h.at, v.file)
	h.size -= v.size
	v.drop()
}

// touch marks f's content as used now.
func (h *held) touch(f *File) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if el, ok := h.at[f]; ok {
		h.order.MoveToFront(el)
	}
}

// letGo lets go what is held of the files which names.
func (h *held) letGo(which func(*File) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for el := h.order.Front(); el != nil; {
		next := el.Next()
		if which(el.Value.(*heldFile).file) {
			h.remove(el)
		}
		el = next
	}
}

// letGo lets go what f holds of the files which names, read or parsed.
func (f *Files) letGo(which func(*File) bool) {
	f.data.letGo(which)
	f.parsed.letGo(which)
}
