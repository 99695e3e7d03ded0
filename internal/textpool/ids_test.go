package textpool_test

import (
	"math"
	"slices"
	"testing"

	"github.com/repotool/repotool/internal/textpool"
)

// TestIDs: IDs packed as differences read back as they were, in any
// order and at either end of their range, after what dst held; bytes
// that do not hold as many as asked for fail.
func TestIDs(t *testing.T) {
	for _, ids := range [][]textpool.ID{
		nil,
		{0},
		{7, 8, 9, 10},
		{math.MaxUint32, 0, math.MaxUint32, 1},
		{500, 3, 499, 4, 4, 4},
	} {
		b := textpool.AppendIDs([]byte("held"), ids...)
		got, err := textpool.ReadIDs(b[len("held"):], len(ids))
		if err != nil || !slices.Equal(got, ids) || string(b[:len("held")]) != "held" {
			t.Errorf("%v read back as %v, %v", ids, got, err)
		}
		if all, err := textpool.ReadIDs(b[len("held"):], -1); err != nil || len(all) != len(ids) {
			t.Errorf("%v read back, counted by the bytes, as %v, %v", ids, all, err)
		}
		if _, err := textpool.ReadIDs(b[len("held"):], len(ids)+1); err == nil {
			t.Errorf("%v read back as %d IDs: want a failure", ids, len(ids)+1)
		}
	}
	if _, err := textpool.ReadIDs([]byte{0x80}, -1); err == nil { // a varint that does not end
		t.Error("damaged bytes read back: want a failure")
	}
	if n := len(textpool.AppendIDs(nil, 100, 101, 102, 103)); n != 5 {
		t.Errorf("four IDs one after the other take %d bytes, want 5", n)
	}
}

// FuzzReadIDs: whatever the bytes, reading them back fails or gives IDs,
// as many as asked for, never a panic.
func FuzzReadIDs(f *testing.F) {
	f.Add(textpool.AppendIDs(nil, 1, 2, 3), 3)
	f.Add([]byte{0x80, 0x80}, -1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = min(n, 1<<16)
		ids, err := textpool.ReadIDs(b, n)
		if err == nil && n >= 0 && len(ids) != n {
			t.Fatalf("%d IDs read back where %d were asked for", len(ids), n)
		}
	})
}
