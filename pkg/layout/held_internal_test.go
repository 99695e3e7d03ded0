package layout

import (
	"testing"
	"testing/fstest"
)

// TestFilesHeldWithinBudget: a Files keeps its files' bytes and documents
// within its budgets, least recently used out first, and a file let go is
// read and parsed again, alike; what the first parse learnt (SOPS
// metadata, the parse error) is kept when the content goes.
func TestFilesHeldWithinBudget(t *testing.T) {
	fsys := fstest.MapFS{
		"a.yaml":     {Data: []byte("a: 1\nb: [2]\n")},
		"b.yaml":     {Data: []byte("c: 3\nd: {e: 4}\n")},
		"bad.yaml":   {Data: []byte("x: [\n")},
		"sops.yaml":  {Data: []byte("k: ENC[AES256_GCM,data:x,iv:y,tag:z,type:str]\nsops:\n  age:\n    - recipient: age1x\n      enc: e\n  mac: m\n  version: 3.9.0\n")},
		"large.yaml": {Data: []byte("z: 0123456789012345678901234567890123456789\n")},
	}
	files := NewFiles(fsys)
	files.data.budget, files.parsed.budget = 30, 30
	a, b := files.Get("a.yaml"), files.Get("b.yaml")
	first, err := a.Docs()
	if err != nil || len(first) != 1 {
		t.Fatalf("a.yaml: %v, %d documents", err, len(first))
	}
	if _, err := b.Docs(); err != nil {
		t.Fatal(err)
	}
	if a.docs.Load() == nil || b.docs.Load() == nil {
		t.Fatal("two files within the budget are not both kept")
	}
	if _, err := files.Get("large.yaml").Docs(); err != nil {
		t.Fatal(err)
	}
	if a.docs.Load() != nil || a.data.Load() != nil || files.parsed.size > 30 || files.data.size > 30 {
		t.Fatalf("over the budget: a.yaml is still held (%d bytes parsed, %d read)", files.parsed.size, files.data.size)
	}
	again, err := a.Docs()
	if err != nil || len(again) != 1 || again[0] == first[0] || again[0].Content[0].Value != "a" || again[0].Content[1].Line != 1 {
		t.Fatalf("a.yaml parsed again: %v, %v", again, err)
	}
	if data, err := a.Data(); err != nil || string(data) != "a: 1\nb: [2]\n" {
		t.Fatalf("a.yaml read again: %q, %v", data, err)
	}

	bad, sops := files.Get("bad.yaml"), files.Get("sops.yaml")
	if bad.Err() == nil || sops.Sops() == nil || sops.Err() != nil {
		t.Fatalf("facts: bad.yaml %v, sops.yaml %v %v", bad.Err(), sops.Sops(), sops.Err())
	}
	for _, p := range []string{"a.yaml", "b.yaml", "large.yaml"} {
		files.Get(p).Docs() // let the two go
	}
	if bad.docs.Load() != nil || sops.docs.Load() != nil {
		t.Fatal("the facts' files are still held")
	}
	if bad.Err() == nil || sops.Sops() == nil || bad.docs.Load() != nil || sops.docs.Load() != nil {
		t.Fatal("the facts were not kept, or were learnt by parsing again")
	}
	if _, err := files.Get("missing.yaml").Data(); err == nil {
		t.Fatal("a missing file read")
	}
}
