package diff

import (
	"fmt"
	"testing"

	"github.com/repotool/repotool/pkg/change"
)

// TestClusterBatches: as admitted, a batch holds whole clusters (all of a
// cluster's policies), at least size targets but for the last.
func TestClusterBatches(t *testing.T) {
	var targets []change.Target
	for _, n := range []string{"a/1", "a/2", "a/3", "b/1", "c/1", "c/2", "c/3", "c/4", "d/1"} {
		targets = append(targets, change.Target{Name: n})
	}
	for size, want := range map[int]string{
		1:   "[a/1 a/2 a/3] [b/1] [c/1 c/2 c/3 c/4] [d/1]",
		4:   "[a/1 a/2 a/3 b/1] [c/1 c/2 c/3 c/4] [d/1]",
		100: "[a/1 a/2 a/3 b/1 c/1 c/2 c/3 c/4 d/1]",
	} {
		var got string
		for i, b := range clusterBatches(targets, size) {
			if i > 0 {
				got += " "
			}
			var names []string
			for _, t := range b {
				names = append(names, t.Name)
			}
			got += fmt.Sprint(names)
		}
		if got != want {
			t.Errorf("size %d: %s, want %s", size, got, want)
		}
	}
}
