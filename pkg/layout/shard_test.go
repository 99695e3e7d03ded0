package layout_test

import (
	"strconv"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want layout.Shard
		ok   bool
	}{
		{"1/1", layout.Shard{I: 1, N: 1}, true},
		{"2/4", layout.Shard{I: 2, N: 4}, true},
		{"10000/10000", layout.Shard{I: 10000, N: 10000}, true},
		{"1/10001", layout.Shard{}, false},
		{"1/4294967296", layout.Shard{}, false}, // was a division by zero in Holds
		{"2/4294967297", layout.Shard{}, false}, // was a shard of nothing
		{"0/4", layout.Shard{}, false},
		{"5/4", layout.Shard{}, false},
		{"-1/4", layout.Shard{}, false},
		{"+1/4", layout.Shard{}, false},
		{"01/4", layout.Shard{}, false},
		{"1/4 ", layout.Shard{}, false},
		{"1/4/2", layout.Shard{}, false},
		{"1", layout.Shard{}, false},
		{"", layout.Shard{}, false},
		{"99999999999999999999/1", layout.Shard{}, false},
	} {
		got, err := layout.ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParseShard: whatever the text, ParseShard either refuses it or
// gives a shard within the bounds that prints as the text, and every
// target is in exactly one of its parts.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", "1/4294967296", "2/4294967297", "0/0", "-1/-1", "10000/10000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := layout.ParseShard(s)
		if err != nil {
			return
		}
		if sh.I < 1 || sh.I > sh.N || sh.N > layout.MaxShards || sh.String() != s {
			t.Fatalf("ParseShard(%q) = %v", s, sh)
		}
		tg := layout.Target{Cluster: "c", Namespace: "ns-" + strconv.Itoa(len(s))}
		in := 0
		for i := 1; i <= sh.N; i++ {
			if (layout.Shard{I: i, N: sh.N}).Holds(tg) {
				in++
			}
		}
		if in != 1 {
			t.Fatalf("%s holds the target in %d parts", s, in)
		}
	})
}
