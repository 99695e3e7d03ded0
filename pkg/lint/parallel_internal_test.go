package lint

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestEachParallel: every index is handed out once, whatever the number
// of workers (none asks for one); once the context is done, none more.
func TestEachParallel(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 64} {
		calls := make([]atomic.Int32, 100)
		eachParallel(context.Background(), workers, len(calls), func(i int) { calls[i].Add(1) })
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Fatalf("%d workers: index %d called %d times", workers, i, n)
			}
		}
	}
	eachParallel(context.Background(), 2, 0, func(int) { t.Error("called with no index to hand out") })
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	eachParallel(ctx, 1, 100, func(i int) {
		if n.Add(1) == 5 {
			cancel()
		}
	})
	if got := n.Load(); got < 5 || got > 6 {
		t.Errorf("%d calls after the context was done at the fifth, want at most one more (handed out before it was seen)", got)
	}
}
