package lint

import (
	"math"
	"slices"
	"testing"

	"github.com/repotool/repotool/internal/textpool"
)

// TestPackIDs: a stored rendering's text IDs, packed as differences, read
// back as they were, in any order and at either end of their range; bytes
// that do not hold as many as asked for fail.
func TestPackIDs(t *testing.T) {
	for _, ids := range [][]textpool.ID{
		nil,
		{0},
		{7, 8, 9, 10},
		{math.MaxUint32, 0, math.MaxUint32, 1},
		{500, 3, 499, 4, 4, 4},
	} {
		s := &stored{texts: packIDs(ids)}
		got, err := s.textIDs(len(ids))
		if err != nil || !slices.Equal(got, ids) {
			t.Errorf("%v read back as %v, %v", ids, got, err)
		}
		if all, err := s.textIDs(-1); err != nil || len(all) != len(ids) {
			t.Errorf("%v read back, counted by the bytes, as %v, %v", ids, all, err)
		}
		if _, err := s.textIDs(len(ids) + 1); err == nil {
			t.Errorf("%v read back as %d IDs: want a failure", ids, len(ids)+1)
		}
	}
	s := &stored{texts: []byte{0x80}} // a varint that does not end
	if _, err := s.textIDs(-1); err == nil {
		t.Error("damaged bytes read back: want a failure")
	}
}

// FuzzTextIDs: whatever the bytes, reading them back fails or gives IDs,
// never a panic.
func FuzzTextIDs(f *testing.F) {
	f.Add(packIDs([]textpool.ID{1, 2, 3}), 3)
	f.Add([]byte{0x80, 0x80}, -1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n > 1<<16 {
			n = 1 << 16
		}
		ids, err := (&stored{texts: b}).textIDs(n)
		if err == nil && n >= 0 && len(ids) != n {
			t.Fatalf("%d IDs read back where %d were asked for", len(ids), n)
		}
	})
}
