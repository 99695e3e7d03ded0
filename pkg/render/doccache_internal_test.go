package render

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestDocCache: a document seen again is served parsed, each time as a
// copy of its own (a caller that changes its content changes nobody
// else's), with manifest.Decode's result; a failure is never kept.
func TestDocCache(t *testing.T) {
	c := newDocCache()
	doc := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")
	var first map[string]any
	for i := range 4 {
		got, err := c.decode(doc)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Fatalf("sighting %d: %v, want %v", i, got, first)
		}
		got["metadata"].(map[string]any)["name"] = "changed"
		first = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"k": "v"}}
	}
	if len(c.parsed) != 1 {
		t.Errorf("%d documents kept parsed, want 1", len(c.parsed))
	}
	bad := []byte("a: [\n")
	for range 3 {
		if _, err := c.decode(bad); err == nil {
			t.Fatal("a document that does not parse was served")
		}
	}
	if len(c.parsed) != 1 {
		t.Errorf("%d documents kept parsed after failures, want 1", len(c.parsed))
	}
}

// TestDocCacheGenerations: what the cache keeps follows the documents in
// hand within its budget: a document kept long ago is let go, one found in
// the generation before is moved into the current, the text kept never
// passes the budget, and a document over half of it is not kept.
func TestDocCacheGenerations(t *testing.T) {
	c := newDocCache()
	c.budget, c.seenCap = 400, 8
	doc := func(i int) []byte { return fmt.Appendf(nil, "kind: ConfigMap\nmetadata:\n  name: doc-%03d\n", i) } // 40 bytes
	twice := func(b []byte) {
		for range 2 {
			if _, err := c.decode(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	kept := func(b []byte) bool {
		_, cur := c.parsed[string(b)]
		_, old := c.old[string(b)]
		return cur || old
	}
	first := doc(0)
	twice(first)
	for i := 1; i < 50; i++ {
		twice(doc(i))
		if i == 7 {
			if !kept(first) {
				t.Fatal("a document of the generation before was let go early")
			}
			twice(first) // served from the generation before: moved into the current
			if _, ok := c.parsed[string(first)]; !ok {
				t.Fatal("a document found in the generation before was not moved into the current")
			}
		}
		if text := c.size + textOf(c.old); text > c.budget {
			t.Fatalf("after %d documents the cache keeps %d bytes of text, over its budget of %d", i+1, text, c.budget)
		}
		if len(c.seen) > c.seenCap || len(c.seenOld) > c.seenCap {
			t.Fatalf("after %d documents the cache remembers %d+%d hashes, over %d each", i+1, len(c.seen), len(c.seenOld), c.seenCap)
		}
	}
	if kept(first) || !kept(doc(49)) {
		t.Errorf("kept: the first document %v (want false), the last %v (want true)", kept(first), kept(doc(49)))
	}
	big := []byte("kind: ConfigMap\ndata:\n  k: " + strings.Repeat("x", 300) + "\n")
	twice(big)
	if kept(big) {
		t.Error("a document over half the budget was kept")
	}
}

func textOf(m map[string]map[string]any) int {
	n := 0
	for k := range m {
		n += len(k)
	}
	return n
}

// TestReleaseDocuments: a Renderer's released cache keeps nothing, and
// serves again as before: a document is kept from its second sighting.
func TestReleaseDocuments(t *testing.T) {
	r := &Renderer{docs: newDocCache()}
	doc := []byte("kind: ConfigMap\nmetadata:\n  name: a\n")
	for range 2 {
		if _, err := r.docs.decode(doc); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.docs.parsed) != 1 {
		t.Fatalf("%d documents kept before the release, want 1", len(r.docs.parsed))
	}
	r.ReleaseDocuments()
	if n := len(r.docs.parsed) + len(r.docs.old) + len(r.docs.seen) + len(r.docs.seenOld); n != 0 || r.docs.size != 0 {
		t.Fatalf("after the release the cache keeps %d entries and %d bytes of text, want none", n, r.docs.size)
	}
	for i := range 2 {
		got, err := r.docs.decode(doc)
		if err != nil || got["kind"] != "ConfigMap" {
			t.Fatalf("sighting %d after the release: %v %v", i, got, err)
		}
	}
	if len(r.docs.parsed) != 1 {
		t.Errorf("%d documents kept after two sightings past the release, want 1", len(r.docs.parsed))
	}
}
