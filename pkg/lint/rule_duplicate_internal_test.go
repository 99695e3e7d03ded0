package lint

import (
	"slices"
	"testing"

	"github.com/repotool/repotool/pkg/manifest"
)

// TestFirstSeen: each object's first with its key, whether the keys'
// hashes differ or all collide (then every key after the first is found
// in the spill).
func TestFirstSeen(t *testing.T) {
	obj := func(apiVersion, kind, ns, name string) placed {
		return placed{o: &manifest.Object{APIVersion: apiVersion, Kind: kind, Name: name}, ns: ns}
	}
	objs := []placed{
		obj("v1", "ConfigMap", "a", "x"),
		obj("v1", "ConfigMap", "b", "x"),
		obj("apps/v1", "Deployment", "a", "x"),
		obj("v1", "ConfigMap", "a", "x"),                  // the first's key
		obj("extensions/v1beta1", "Deployment", "a", "x"), // another group: another key
		obj("apps/v1beta2", "Deployment", "a", "x"),       // the same group as apps/v1
		obj("v1", "ConfigMap", "b", "x"),
		obj("v1", "ConfigMap", "", "x"),
	}
	want := []int{0, 1, 2, 0, 4, 2, 1, 7}
	for _, tc := range []struct {
		name string
		s    *firstSeen
	}{
		{"hashes", newFirstSeen(len(objs))},
		{"one hash", &firstSeen{hash: func(manifest.Key) uint64 { return 7 }, by: map[uint64]int32{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for i := range objs {
				got = append(got, tc.s.indexOf(objs, i))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("first of each: %v, want %v", got, want)
			}
			if tc.name == "one hash" && len(tc.s.spill) != 4 {
				t.Fatalf("%d keys in the spill, want the 4 after the first", len(tc.s.spill))
			}
		})
	}
}
