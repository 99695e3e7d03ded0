package render

import (
	"reflect"
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
