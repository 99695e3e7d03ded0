package lint

import (
	"context"
	"sync"
)

// eachParallel calls fn with each index below n, on workers goroutines at
// once (at least one), and returns once every call has returned. Once ctx
// is done it hands out no more indices: the calls already made finish.
func eachParallel(ctx context.Context, workers, n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}
