package render

import (
	"bytes"
	"testing"
)

func TestSplitObjects(t *testing.T) {
	stream := []byte(`---
# Source: app/templates/a.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: ns
---
# Source: app/charts/lib/templates/b.yaml
# only a comment
---
# Source: app/charts/redis/charts/inner/templates/c.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: c
`)
	origins := map[string]string{
		"app":                           "namespaces/app",
		"app/charts/lib":                "lib",
		"app/charts/redis":              "namespaces/app/charts/redis-1.0.0.tgz",
		"app/charts/redis/charts/inner": "namespaces/app/charts/redis-1.0.0.tgz",
	}
	objs, err := splitObjects(stream, origins)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("got %d objects, want 2 (a comment-only document is not an object)", len(objs))
	}
	a, c := objs[0], objs[1]
	if a.ID() != "v1/ConfigMap ns/a" || a.Line != 3 || a.File != "namespaces/app/templates/a.yaml" || a.Member != "" {
		t.Errorf("a = %s line %d file %q member %q", a.ID(), a.Line, a.File, a.Member)
	}
	if c.ID() != "apps/v1/Deployment c" || c.Line != 13 || c.File != "namespaces/app/charts/redis-1.0.0.tgz" || c.Member != "redis/charts/inner/templates/c.yaml" {
		t.Errorf("c = %s line %d file %q member %q", c.ID(), c.Line, c.File, c.Member)
	}
	if !bytes.HasPrefix(a.YAML, []byte("apiVersion: v1\n")) {
		t.Errorf("a.YAML = %q", a.YAML)
	}
	if _, err := splitObjects([]byte("---\n# Source: x/templates/y.yaml\na: [\n"), origins); err == nil {
		t.Error("invalid YAML accepted")
	}
}

// FuzzSplitObjects: the stream splitter never panics, and every object it
// returns starts at a line of the stream that holds its first YAML line.
func FuzzSplitObjects(f *testing.F) {
	f.Add([]byte("---\n# Source: a/templates/x.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\n---\n---\n"))
	f.Add([]byte("---\n# Source: \n"))
	f.Add([]byte("---\r\nkind: A\r\n---\r\n"))
	origins := map[string]string{"a": "namespaces/a", "a/charts/b": "namespaces/a/charts/b-1.tgz"}
	f.Fuzz(func(t *testing.T, stream []byte) {
		objs, err := splitObjects(stream, origins)
		if err != nil {
			return
		}
		lines := bytes.SplitAfter(stream, []byte("\n"))
		for _, o := range objs {
			if o.Line < 1 || o.Line > len(lines) {
				t.Fatalf("object line %d outside the stream of %d lines", o.Line, len(lines))
			}
			if !bytes.HasPrefix(bytes.Join(lines[o.Line-1:], nil), o.YAML) {
				t.Fatalf("object YAML does not start at line %d", o.Line)
			}
		}
	})
}
