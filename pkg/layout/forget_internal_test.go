package layout

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
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

// TestPathSet: a set packed in one string finds what it holds, and only
// that, and two sets merge in order without repeats.
func TestPathSet(t *testing.T) {
	s := packPaths([]string{"a.yaml", "a/b.yaml", "b", "namespaces/x/values.yaml"})
	for _, tc := range []struct {
		path string
		want bool
	}{{"a.yaml", true}, {"a/b.yaml", true}, {"b", true}, {"namespaces/x/values.yaml", true},
		{"", false}, {"a", false}, {"a.yam", false}, {"a/b.yamlx", false}, {"c", false}, {"a.yamla/b.yaml", false}} {
		if got := s.has(tc.path); got != tc.want {
			t.Errorf("has(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	var empty pathSet
	if empty.has("") || empty.has("a") || empty.n != 0 {
		t.Error("the empty set holds something")
	}
	more := packPaths([]string{"a/b.yaml", "aa", "c"})
	merged := merge(&s, &more)
	want := []string{"a.yaml", "a/b.yaml", "aa", "b", "c", "namespaces/x/values.yaml"}
	if got := slices.Collect(merged.all()); !slices.Equal(got, want) {
		t.Errorf("merged: %q, want %q", got, want)
	}
	// Many paths, past several restarts: each found, and none between.
	var many []string
	for c := range 3 {
		for ns := range 40 {
			many = append(many, fmt.Sprintf("clusters/c%d/ns-%03d/prod-values-a.yaml", c, ns), fmt.Sprintf("clusters/c%d/ns-%03d/prod-values-a.secret.yaml", c, ns))
		}
	}
	slices.Sort(many)
	big := packPaths(many)
	if got := slices.Collect(big.all()); !slices.Equal(got, many) {
		t.Fatalf("the paths back: %d, want %d", len(got), len(many))
	}
	for _, p := range many {
		if !big.has(p) || big.has(p+"x") || big.has(p[:len(p)-1]) {
			t.Fatalf("has(%q) or a neighbour of it is wrong", p)
		}
	}
	if big.has("a") || big.has("z") {
		t.Fatal("a path before or after every other is found")
	}
	x := packPaths([]string{"x"})
	one := merge(&empty, &x)
	if got := slices.Collect(one.all()); !slices.Equal(got, []string{"x"}) {
		t.Errorf("merged into the empty set: %q", got)
	}
}

// paths are every run's paths, sorted, each once.
// paths are m's paths, sorted.
func (m *marks) paths(listing *pathSet) []string {
	out := m.runs.paths()
	if listing != nil {
		i := 0
		for p := range listing.all() {
			if i/64 < len(m.bits) && m.bits[i/64]&(1<<(i%64)) != 0 {
				out = append(out, p)
			}
			i++
		}
	}
	slices.Sort(out)
	return out
}

func (r *pathRuns) paths() []string {
	var out []string
	for i := range r.runs {
		out = append(out, slices.Collect(r.runs[i].all())...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPathRuns: a set grown by batches, some of them repeating paths,
// holds every path added and none other, in few runs, each at most half
// the one before; a search allocates nothing.
func TestPathRuns(t *testing.T) {
	var r pathRuns
	want := map[string]bool{}
	for batch := range 40 {
		var ps []string
		for i := range 1 + batch*7%23 {
			p := fmt.Sprintf("namespaces/ns-%03d/templates/t%02d.yaml", (batch*13+i*5)%97, i%11)
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		slices.Sort(ps)
		r.add(ps)
		for _, p := range ps {
			want[p] = true
		}
		for k := 1; k < len(r.runs); k++ {
			if 2*r.runs[k].n > r.runs[k-1].n {
				t.Fatalf("after batch %d, run %d holds %d paths, run %d %d", batch, k, r.runs[k].n, k-1, r.runs[k-1].n)
			}
		}
	}
	got := r.paths()
	if len(got) != len(want) {
		t.Fatalf("%d paths held, want %d", len(got), len(want))
	}
	for _, p := range got {
		if !want[p] || !r.has(p) || r.has(p+"x") || r.has(p[1:]) {
			t.Fatalf("has(%q) or a neighbour of it is wrong", p)
		}
	}
	if len(r.runs) > 8 {
		t.Errorf("%d runs for %d paths", len(r.runs), len(want))
	}
	if r.add(nil); len(r.paths()) != len(want) {
		t.Error("an empty batch changed the set")
	}
	if n := testing.AllocsPerRun(100, func() { r.has("namespaces/ns-042/templates/t03.yaml") }); n != 0 {
		t.Errorf("has allocates %v times", n)
	}
	// Merged sets hold each path once.
	a, b := packPaths([]string{"a", "c", "e"}), packPaths([]string{"b", "c", "d", "f"})
	if m := merge(&a, &b); !slices.Equal(slices.Collect(m.all()), []string{"a", "b", "c", "d", "e", "f"}) || m.n != 6 {
		t.Errorf("merge: %q (%d)", slices.Collect(m.all()), m.n)
	}
	var none pathSet
	if m := merge(&none, &none); m.n != 0 || m.has("") {
		t.Error("two empty sets merge into a non-empty one")
	}
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
	if got := files.forgot.paths(files.listed()); !slices.Equal(got, []string{"parsed.yaml"}) {
		t.Fatalf("forgotten after a parse: %q", got)
	}
	if got := files.sopsless.paths(files.listed()); !slices.Equal(got, []string{"bad.yaml"}) {
		t.Fatalf("forgotten after a failed parse: %q", got)
	}
	if inRuns := len(files.forgot.runs.runs) + len(files.sopsless.runs.runs); listed != (inRuns == 0) {
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

// FuzzPathSet: a set packed from any sorted paths gives them back in
// order, finds each at its place, and finds no other that neighbours one.
func FuzzPathSet(f *testing.F) {
	f.Add("a\na/b\nab\nb\nclusters/c0/ns-000/x.yaml\nclusters/c0/ns-001/x.yaml")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		ps := strings.Split(in, "\n")
		slices.Sort(ps)
		ps = slices.Compact(ps)
		s := packPaths(ps)
		if got := slices.Collect(s.all()); !slices.Equal(got, ps) {
			t.Fatalf("back: %q, want %q", got, ps)
		}
		for i, p := range ps {
			if at, ok := s.index(p); !ok || at != i {
				t.Fatalf("%q found at %d (%v), want %d", p, at, ok, i)
			}
			for _, other := range []string{p + "\x00", p + "~"} {
				if _, in := slices.BinarySearch(ps, other); s.has(other) != in {
					t.Fatalf("has(%q) = %v", other, !in)
				}
			}
		}
	})
}
