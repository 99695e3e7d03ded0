package layout

import (
	"path"
	"testing"
	"testing/fstest"
)

// sopsYAML is a SOPS-encrypted YAML document as the file index sees one
// (its metadata; nothing here decrypts it).
const sopsYAML = "k: ENC[AES256_GCM,data:x,iv:y,tag:z,type:str]\nsops:\n  age:\n    - recipient: age1x\n      enc: e\n  mac: m\n  version: 3.9.0\n"

// TestFilesHeldWithinBudget: a Files keeps its files' bytes and documents
// within its budgets, least recently used out first, and a file let go is
// read and parsed again, alike; what the first parse learnt (SOPS
// metadata, the parse error) is kept when the content goes.
func TestFilesHeldWithinBudget(t *testing.T) {
	fsys := fstest.MapFS{
		"a.yaml":     {Data: []byte("a: 1\nb: [2]\n")},
		"b.yaml":     {Data: []byte("c: 3\nd: {e: 4}\n")},
		"bad.yaml":   {Data: []byte("x: [\n")},
		"sops.yaml":  {Data: []byte(sopsYAML)},
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

// TestLoadLetsHeldGo: Load lets go what its checks held of the values
// files (the stages after it seldom ask for the ones read last), keeping
// what they learnt, and keeps the charts' files it read; a values file
// asked for again is read again.
func TestLoadLetsHeldGo(t *testing.T) {
	repo, err := LoadDir(t.Context(), "../../testdata/monorepo", Options{})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]bool{}
	var secret *File
	for _, tg := range repo.Targets {
		for _, vf := range tg.Values {
			values[vf.Path] = true
			if vf.Secret && secret == nil {
				secret = repo.Files.Get(vf.Path)
			}
		}
	}
	if secret == nil {
		t.Fatal("the fixture has no secret values file")
	}
	charts := 0
	for _, h := range []*held{&repo.Files.data, &repo.Files.parsed} {
		for f := range h.at {
			if values[f.Path] {
				t.Errorf("after Load, %s is still held", f.Path)
			}
			if path.Base(f.Path) == "Chart.yaml" {
				charts++
			}
		}
	}
	if charts == 0 {
		t.Error("no chart's Chart.yaml is held after Load: render reads each again")
	}
	if secret.data.Load() != nil || secret.docs.Load() != nil {
		t.Fatalf("after Load, %s is still held", secret.Path)
	}
	if secret.Sops() == nil {
		t.Fatal("what the load learnt (the SOPS metadata) was let go too")
	}
	before := repo.Files.data.size
	if data, err := secret.Data(); err != nil || len(data) == 0 || repo.Files.data.size != before+len(data) {
		t.Fatalf("read again: %d bytes, %v; %d held", len(data), err, repo.Files.data.size-before)
	}
}
