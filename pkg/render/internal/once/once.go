// Package once computes one value per key, once, however many goroutines
// ask for it at the same time: a chart loaded once per run (or once per
// stretch of a run that needs it: Forget), a chart repository's index
// downloaded once per run.
package once

import "sync"

// Map holds the values by key. The zero Map is ready to use.
type Map[T any] struct {
	mu sync.Mutex
	m  map[string]*entry[T]
}

type entry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns key's value, computing it with f the first time.
func (o *Map[T]) Get(key string, f func() (T, error)) (T, error) {
	o.mu.Lock()
	if o.m == nil {
		o.m = map[string]*entry[T]{}
	}
	e, ok := o.m[key]
	if !ok {
		e = &entry[T]{}
		o.m[key] = e
	}
	o.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}

// Forget lets key's value go: the next Get computes it again. A Get
// already holding the value keeps it.
func (o *Map[T]) Forget(key string) {
	o.mu.Lock()
	delete(o.m, key)
	o.mu.Unlock()
}
