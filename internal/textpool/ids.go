package textpool

import (
	"encoding/binary"
	"fmt"

	"github.com/repotool/repotool/internal/varenc"
)

// AppendIDs appends ids to dst, each as its difference from the one
// before (the first from zero), a signed varint. The texts of one
// rendering or one file mostly went into the pool one after the other,
// or were put before in the same order by a target of the same chart:
// a byte or two an ID, where an ID takes four.
func AppendIDs(dst []byte, ids ...ID) []byte {
	prev := int64(0)
	for _, id := range ids {
		dst = binary.AppendVarint(dst, int64(id)-prev)
		prev = int64(id)
	}
	return dst
}

// ReadIDs are the IDs AppendIDs wrote into b, n of them (any number when
// n < 0). Bytes that end early, or hold other than n IDs, are an error.
func ReadIDs(b []byte, n int) ([]ID, error) {
	out := make([]ID, 0, max(n, 0))
	d := varenc.Reader{B: b}
	prev := int64(0)
	for len(d.B) > 0 && d.Err == nil {
		prev += int64(d.Varint())
		out = append(out, ID(prev))
	}
	if d.Err != nil {
		return nil, fmt.Errorf("textpool: text IDs: %w", d.Err) // not reached: callers read what they wrote
	}
	if n >= 0 && len(out) != n {
		return nil, fmt.Errorf("textpool: %d text IDs where %d were written", len(out), n) // not reached
	}
	return out, nil
}
