package values_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/values"
)

func doc(t testing.TB, s string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	if len(n.Content) == 0 {
		return nil
	}
	return n.Content[0]
}

// origin renders an origin as "file:line [over file:line ...] [list] [deleted]".
func origin(o *values.Origin) string {
	if o == nil {
		return "none"
	}
	s := []string{where(o.From)}
	for _, x := range o.Overrode {
		s = append(s, "over "+where(x))
	}
	if o.ReplacedList {
		s = append(s, "replaced list")
	}
	if o.Deleted {
		s = append(s, "deleted")
	}
	if o.From.Secret {
		s = append(s, "secret")
	}
	return strings.Join(s, " ")
}

func where(s values.Source) string { return s.File + ":" + itoa(s.Line) }

func itoa(n int) string { return fmt.Sprintf("%02d", n) }

func TestTraceLayers(t *testing.T) {
	layers := []values.Layer{
		{File: "chart/values.yaml", Doc: doc(t, "image:\n  repo: a\n  tag: \"1\"\ntolerations:\n  - a\nresources:\n  limits:\n    cpu: 1\n    memory: 1Gi\nlabels: {}\nprobe: 5\n")},
		{File: "chart/charts/db/values.yaml", Prefix: []string{"db"}, Doc: doc(t, "port: 5432\n")},
		{File: "ns/common-values.yaml", Doc: doc(t, "image:\n  tag: \"2\"\ntolerations:\n  - b\n  - c\nprobe:\n  path: /\n")},
		{File: "ns/common-values.secret.yaml", Secret: true, Doc: doc(t, "db:\n  password: ENC[x]\nsops:\n  version: 3.9.0\n")},
		{File: "c/prod-values.yaml", Doc: doc(t, "image:\n  tag: \"3\"\nresources: small\ndb:\n  port: null\n")},
	}
	tr := values.TraceLayers(layers)
	for path, want := range map[string]string{
		"image.repo":           "chart/values.yaml:02",
		"image.tag":            "c/prod-values.yaml:02 over chart/values.yaml:03 over ns/common-values.yaml:02",
		"tolerations":          "ns/common-values.yaml:03 over chart/values.yaml:04 replaced list",
		"resources":            "c/prod-values.yaml:03 over chart/values.yaml:08 over chart/values.yaml:09",
		"probe.path":           "ns/common-values.yaml:07 over chart/values.yaml:11",
		"db.port":              "c/prod-values.yaml:05 over chart/charts/db/values.yaml:01 deleted",
		"db.password":          "ns/common-values.secret.yaml:02 secret",
		"labels":               "chart/values.yaml:10",
		"sops.version":         "none",
		"resources.limits.cpu": "none",
	} {
		if got := origin(tr[values.Key(strings.Split(path, "."))]); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

func TestEffective(t *testing.T) {
	tr := values.TraceLayers([]values.Layer{
		{File: "v.yaml", Doc: doc(t, "global:\n  region: eu\na:\n  b: 1\n")},
		{File: "s.secret.yaml", Secret: true, Doc: doc(t, "a:\n  c: ENC[x]\n")},
	})
	e := &values.Effective{Values: map[string]any{
		"global": map[string]any{"region": "eu"},
		"a":      map[string]any{"b": 1, "c": "placeholder"},
		"sub":    map[string]any{"global": map[string]any{"region": "eu"}, "x": true},
	}, Trace: tr}
	var got []string
	for _, l := range e.Leaves(nil) {
		got = append(got, strings.Join(l.Path, ".")+"="+origin(l.Origin))
	}
	want := []string{"a.b=v.yaml:04", "a.c=s.secret.yaml:02 secret", "global.region=v.yaml:02", "sub.global.region=v.yaml:02", "sub.x=none"}
	if !slices.Equal(got, want) {
		t.Errorf("leaves:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if l := e.Leaves([]string{"a", "c"}); len(l) != 1 || !l[0].Secret() {
		t.Errorf("a.c: %+v", l)
	}
	if _, ok := e.Get([]string{"a", "b", "c"}); ok {
		t.Error("a path through a scalar was found")
	}
}

// FuzzTraceLayers: any two YAML documents trace without a panic, every
// origin names one of the layers, and every source it overrode comes
// from an earlier or the same layer.
func FuzzTraceLayers(f *testing.F) {
	f.Add("a:\n  b: [1, 2]\n", "a: {b: [3]}\n")
	f.Add("x: &a {y: 1}\nz: *a\n", "z: null\n")
	f.Add("sops: {v: 1}\nk: ENC\n", "- list\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		var na, nb yaml.Node
		if yaml.Unmarshal([]byte(a), &na) != nil || yaml.Unmarshal([]byte(b), &nb) != nil || len(na.Content) == 0 || len(nb.Content) == 0 {
			return
		}
		order := map[string]int{"a.yaml": 0, "b.secret.yaml": 1}
		tr := values.TraceLayers([]values.Layer{{File: "a.yaml", Doc: na.Content[0]}, {File: "b.secret.yaml", Secret: true, Doc: nb.Content[0]}})
		for k, o := range tr {
			n, ok := order[o.From.File]
			if !ok {
				t.Fatalf("%q: from %q", k, o.From.File)
			}
			for _, x := range o.Overrode {
				if order[x.File] > n {
					t.Fatalf("%q: %s overrode the later %s", k, o.From.File, x.File)
				}
			}
		}
	})
}

// TestCompare: a leaf differs when its presence or value differs; secret
// leaves are compared by presence only, and never carry a value.
func TestCompare(t *testing.T) {
	eff := func(v map[string]any, layers ...values.Layer) *values.Effective {
		return &values.Effective{Values: v, Trace: values.TraceLayers(layers)}
	}
	a := eff(map[string]any{"tag": "1", "same": 1, "list": []any{"a"}, "only": true, "pw": "placeholder"},
		values.Layer{File: "a.secret.yaml", Secret: true, Doc: doc(t, "pw: ENC[x]\n")})
	b := eff(map[string]any{"tag": "2", "same": 1, "list": []any{"a", "b"}, "pw": "placeholder-too"},
		values.Layer{File: "b.secret.yaml", Secret: true, Doc: doc(t, "pw: ENC[y]\n")})
	var got []string
	for _, d := range values.Compare([]*values.Effective{a, b}) {
		got = append(got, strings.Join(d.Path, "."))
		for _, s := range d.Sides {
			if s.Secret && s.Value != nil {
				t.Errorf("%v: a secret side carries a value", d.Path)
			}
		}
	}
	if want := []string{"list", "only", "tag"}; !slices.Equal(got, want) {
		t.Errorf("differences %v, want %v", got, want)
	}
}

func TestUndeclared(t *testing.T) {
	defaults := values.TraceLayers([]values.Layer{
		{File: "chart/values.yaml", Doc: doc(t, "replicaCount: 1\nimage:\n  repository: a\n  tag: \"1\"\npodAnnotations: {}\nresources: {}\nenv: []\n")},
		{File: "chart/charts/db/values.yaml", Prefix: []string{"db"}, Doc: doc(t, "port: 5432\n")},
	})
	l := values.Layer{File: "c/prod-values.yaml", Doc: doc(t, "replicasCount: 3\nimage:\n  tagg: \"2\"\n  repository: b\npodAnnotations:\n  a: b\nresources:\n  limits: {cpu: 1}\ndb:\n  prot: 1\nextra:\n  x: 1\nenv: [A]\n")}
	var got []string
	for _, c := range values.Undeclared(defaults, l) {
		got = append(got, fmt.Sprintf("%s:%d~%s", strings.Join(c.Path, "."), c.Line, c.Nearest))
	}
	want := []string{"replicasCount:1~replicaCount", "image.tagg:3~tag", "db.prot:10~port", "extra:11~"}
	if !slices.Equal(got, want) {
		t.Errorf("Undeclared = %v, want %v", got, want)
	}
}

// TestTraceReplaceDeep: a leaf that replaces a map replaces everything
// below it, however deep, and nothing beside it; a map merged again where
// the leaf is overrides the leaf and what the leaf overrode.
func TestTraceReplaceDeep(t *testing.T) {
	tr := values.TraceLayers([]values.Layer{
		{File: "a.yaml", Doc: doc(t, "x:\n  y:\n    z: 1\n    w:\n      v: 2\n  u: 3\nxx: 4\n")},
		{File: "b.yaml", Doc: doc(t, "x:\n  y: leaf\n")},
		{File: "c.yaml", Doc: doc(t, "x:\n  y:\n    n: 5\n")},
	})
	for path, want := range map[string]string{
		"x.y.n":     "c.yaml:03 over a.yaml:05 over a.yaml:03 over b.yaml:02",
		"x.y.z":     "none",
		"x.y.w.v":   "none",
		"x.u":       "a.yaml:06",
		"xx":        "a.yaml:07",
		"x.y":       "none",
		"x.y.w":     "none",
		"x.u.extra": "none",
	} {
		if got := origin(tr[values.Key(strings.Split(path, "."))]); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if o := tr[values.Key([]string{"x", "y", "n"})]; o == nil || len(o.Overrode) != 3 {
		t.Fatalf("x.y.n overrode %v", o)
	}
}

// BenchmarkTraceLayers: a values file of many keys over a chart's
// values (a leaf replacing a map used to look at every entry).
func BenchmarkTraceLayers(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "k%x: %d\n", i, i)
	}
	big := doc(b, sb.String())
	chart := doc(b, "k1: {a: 1}\nk2: 2\n")
	b.ResetTimer()
	for range b.N {
		values.TraceLayers([]values.Layer{{File: "values.yaml", Doc: chart}, {File: "big.yaml", Doc: big}})
	}
}
