package layout

import (
	"fmt"
	"io/fs"
	"slices"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

// openCounter is a file system that counts the files opened (it has no
// other method, so that every read opens).
type openCounter struct {
	files fstest.MapFS
	opens atomic.Int32
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.opens.Add(1)
	return c.files.Open(name)
}

// TestForget: Forget lets go of the entries that hold nothing and learnt
// nothing that a read would not learn again, keeps those in use and one
// whose parse failed after its SOPS document; holds the metadata of one
// parsed clean, which it tells again without a read;
// a file forgotten after a clean parse tells its facts again without
// being read, its content read again when asked; one whose parse failed
// tells it holds no SOPS metadata without being read, and is parsed again
// for its error.
// Made before, the repository's listing holds the marks as bits.
func TestForget(t *testing.T) {
	for _, listed := range []bool{false, true} {
		t.Run(fmt.Sprintf("listed %v", listed), func(t *testing.T) { testForget(t, listed) })
	}
}

func testForget(t *testing.T, listed bool) {
	fsys := &openCounter{files: fstest.MapFS{
		"parsed.yaml":  {Data: []byte("a: 1\n")},
		"read.tpl":     {Data: []byte("{{ .Values.a }}\n")},
		"held.yaml":    {Data: []byte("b: 2\n")},
		"bad.yaml":     {Data: []byte("x: [\n")},
		"sops.yaml":    {Data: []byte(sopsYAML)},
		"sopsbad.yaml": {Data: []byte(sopsYAML + "---\nx: [\n")},
	}}
	files := NewFiles(fsys)
	if listed {
		for range files.Paths() {
		}
	}
	for _, p := range []string{"parsed.yaml", "bad.yaml", "sops.yaml", "sopsbad.yaml"} {
		files.Get(p).Docs()
	}
	if _, err := files.Get("read.tpl").Data(); err != nil {
		t.Fatal(err)
	}
	files.letGo(func(*File) bool { return true })
	held := files.Get("held.yaml")
	if _, err := held.Data(); err != nil {
		t.Fatal(err)
	}
	files.Get("never.yaml") // asked for, never read
	files.Forget()
	var kept []string
	for p := range files.entries {
		kept = append(kept, p)
	}
	slices.Sort(kept)
	if want := []string{"held.yaml", "sopsbad.yaml"}; !slices.Equal(kept, want) {
		t.Fatalf("entries kept: %q, want %q", kept, want)
	}
	if got := files.forgot.Paths(files.listed()); !slices.Equal(got, []string{"parsed.yaml"}) {
		t.Fatalf("forgotten after a parse: %q", got)
	}
	if got := files.sopsless.Paths(files.listed()); !slices.Equal(got, []string{"bad.yaml"}) {
		t.Fatalf("forgotten after a failed parse: %q", got)
	}
	if inRuns := files.forgot.Runs() + files.sopsless.Runs(); listed != (inRuns == 0) {
		t.Fatalf("listing made %v: %d runs of marks", listed, inRuns)
	}

	before := fsys.opens.Load()
	again := files.Get("parsed.yaml")
	if again.Sops() != nil || again.Err() != nil || again.Encrypted() || fsys.opens.Load() != before {
		t.Fatalf("a forgotten file's facts: %v, %v; %d files opened", again.Sops(), again.Err(), fsys.opens.Load()-before)
	}
	if docs, err := again.Docs(); err != nil || len(docs) != 1 || fsys.opens.Load() == before {
		t.Fatalf("a forgotten file read again: %d documents, %v", len(docs), err)
	}
	if tpl := files.Get("read.tpl"); tpl.read || tpl.parsed {
		t.Fatal("a file only read is taken for one parsed when asked again")
	}
	if len(files.sealed) != 1 || files.sealed["sops.yaml"] == nil {
		t.Fatalf("SOPS metadata held for %d files, want sops.yaml's alone", len(files.sealed))
	}
	before = fsys.opens.Load()
	if sealed := files.Get("sops.yaml"); sealed.Sops() == nil || !sealed.Encrypted() || sealed.Err() != nil || fsys.opens.Load() != before {
		t.Fatal("a forgotten SOPS-encrypted file's metadata was lost, or read again")
	}
	if docs, err := files.Get("sops.yaml").Docs(); err != nil || len(docs) != 1 || fsys.opens.Load() == before {
		t.Fatalf("a forgotten SOPS-encrypted file read again: %d documents, %v", len(docs), err)
	}
	if sb := files.Get("sopsbad.yaml"); sb.Sops() == nil || sb.Err() == nil {
		t.Fatal("the facts of an entry kept after its parse failed past its SOPS document were lost")
	}
	before = fsys.opens.Load()
	bad := files.Get("bad.yaml")
	if bad.Sops() != nil || bad.Encrypted() || fsys.opens.Load() != before {
		t.Fatal("a forgotten file whose parse failed was read again to tell it holds no SOPS metadata")
	}
	if bad.Err() == nil || fsys.opens.Load() == before {
		t.Fatal("a forgotten file whose parse failed is not parsed again for its error, or parses")
	}
}
