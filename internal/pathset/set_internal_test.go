package pathset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPathSet: a set packed in one string finds what it holds, and only
// that, and two sets merge in order without repeats.
func TestPathSet(t *testing.T) {
	s := Pack([]string{"a.yaml", "a/b.yaml", "b", "namespaces/x/values.yaml"})
	for _, tc := range []struct {
		path string
		want bool
	}{{"a.yaml", true}, {"a/b.yaml", true}, {"b", true}, {"namespaces/x/values.yaml", true},
		{"", false}, {"a", false}, {"a.yam", false}, {"a/b.yamlx", false}, {"c", false}, {"a.yamla/b.yaml", false}} {
		if got := s.Has(tc.path); got != tc.want {
			t.Errorf("has(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	var empty Set
	if empty.Has("") || empty.Has("a") || empty.n != 0 {
		t.Error("the empty set holds something")
	}
	more := Pack([]string{"a/b.yaml", "aa", "c"})
	merged := merge(&s, &more)
	want := []string{"a.yaml", "a/b.yaml", "aa", "b", "c", "namespaces/x/values.yaml"}
	if got := slices.Collect(merged.All()); !slices.Equal(got, want) {
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
	big := Pack(many)
	if got := slices.Collect(big.All()); !slices.Equal(got, many) {
		t.Fatalf("the paths back: %d, want %d", len(got), len(many))
	}
	for _, p := range many {
		if !big.Has(p) || big.Has(p+"x") || big.Has(p[:len(p)-1]) {
			t.Fatalf("has(%q) or a neighbour of it is wrong", p)
		}
	}
	if big.Has("a") || big.Has("z") {
		t.Fatal("a path before or after every other is found")
	}
	x := Pack([]string{"x"})
	one := merge(&empty, &x)
	if got := slices.Collect(one.All()); !slices.Equal(got, []string{"x"}) {
		t.Errorf("merged into the empty set: %q", got)
	}
}

// TestPathRuns: a set grown by batches, some of them repeating paths,
// holds every path added and none other, in few runs, each at most half
// the one before; a search allocates nothing.
func TestPathRuns(t *testing.T) {
	var r runSet
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
	a, b := Pack([]string{"a", "c", "e"}), Pack([]string{"b", "c", "d", "f"})
	if m := merge(&a, &b); !slices.Equal(slices.Collect(m.All()), []string{"a", "b", "c", "d", "e", "f"}) || m.n != 6 {
		t.Errorf("merge: %q (%d)", slices.Collect(m.All()), m.n)
	}
	var none Set
	if m := merge(&none, &none); m.n != 0 || m.Has("") {
		t.Error("two empty sets merge into a non-empty one")
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
		s := Pack(ps)
		if got := slices.Collect(s.All()); !slices.Equal(got, ps) {
			t.Fatalf("back: %q, want %q", got, ps)
		}
		for i, p := range ps {
			if at, ok := s.Index(p); !ok || at != i {
				t.Fatalf("%q found at %d (%v), want %d", p, at, ok, i)
			}
			for _, other := range []string{p + "\x00", p + "~"} {
				if _, in := slices.BinarySearch(ps, other); s.Has(other) != in {
					t.Fatalf("has(%q) = %v", other, !in)
				}
			}
		}
	})
}
