package render

import "sync"

// onceMap computes one value per key, once, however many goroutines ask
// for it at the same time: a chart loaded once per run, a chart
// repository's index downloaded once per run.
type onceMap[T any] struct {
	mu sync.Mutex
	m  map[string]*onceEntry[T]
}

type onceEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// get returns key's value, computing it with f the first time.
func (o *onceMap[T]) get(key string, f func() (T, error)) (T, error) {
	o.mu.Lock()
	if o.m == nil {
		o.m = map[string]*onceEntry[T]{}
	}
	e, ok := o.m[key]
	if !ok {
		e = &onceEntry[T]{}
		o.m[key] = e
	}
	o.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}
