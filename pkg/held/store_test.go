package held

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// factsFor keeps the content of ServiceAccounts (nil: no facts) and, of
// the other objects, a fact of their name and one of their kind when it is
// a Job.
func factsFor(o *manifest.Object) Facts {
	if o.Kind == "ServiceAccount" {
		return nil
	}
	f := Facts{{o.Name}, nil}
	if o.Kind == "Job" {
		f[1] = []string{"job", o.Kind}
	}
	return f
}

func parseServiceAccounts(o *manifest.Object) bool { return o.Kind == "ServiceAccount" }

// TestStoreRestore: renderings stored and restored come back as they were
// (objects, texts, the content of the kinds parsed, facts), a text two
// renderings share is held once, and so is their list of objects when they
// name and place them alike; the texts of the kinds not parsed stay in the
// pool, read from there, until the rendering is released; the pool is
// empty once every rendering is.
func TestStoreRestore(t *testing.T) {
	shared := "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n"
	streams := []string{
		"---\n" + shared + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
		"---\n" + shared + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n" +
			"---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: certgen\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leaked\n",
	}
	s := NewStore()
	defer s.Close()
	r := render.New(&layout.Repo{}, render.Options{})
	var want [][]manifest.Object
	var hs []*Rendering
	for _, stream := range streams {
		objs, err := manifest.Read([]byte(stream))
		if err != nil {
			t.Fatal(err)
		}
		res := &render.Result{Objects: objs}
		want = append(want, slices.Clone(res.Objects))
		h, err := s.Put(r, res, factsFor)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if s.Len() != 8 {
		t.Fatalf("the pool holds %d texts, want 8: six objects' and the first two renderings' list of objects, alike, once, the third's", s.Len())
	}
	if texts := s.Texts(hs); len(texts) != 6 {
		t.Errorf("%d distinct texts, want 6", len(texts))
	}
	for i, h := range hs {
		res, facts, err := s.Restore(context.Background(), r, layout.Target{}, h, parseServiceAccounts, Names{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range want[i] {
			w, g := want[i][k], res.Objects[k]
			if (g.YAML != nil) != parseServiceAccounts(&w) {
				t.Errorf("rendering %d, object %s: its text restored: %v", i, g.ID(), g.YAML != nil)
			}
			text, _ := g.Text()
			if w.ID() != g.ID() || string(w.YAML) != string(text) || w.Line != g.Line || (g.Content != nil) != parseServiceAccounts(&w) {
				t.Errorf("rendering %d, object %d restored as %s (content %v), want %s", i, k, g.ID(), g.Content, w.ID())
			}
			if g.Content != nil && !reflect.DeepEqual(g.Content, w.Content) {
				t.Errorf("rendering %d, object %s: content %v, want %v", i, g.ID(), g.Content, w.Content)
			}
			if got, wantFacts := facts[k], factsFor(&w); !reflect.DeepEqual(got, wantFacts) {
				t.Errorf("rendering %d, object %s: facts %q given back, want %q", i, g.ID(), got, wantFacts)
			}
		}
	}
	if s.Len() != 5 {
		t.Errorf("the pool holds %d texts once every rendering is restored, want 5: the Deployments', the Job's and the ConfigMap's, read from there", s.Len())
	}
	for _, h := range hs {
		if err := s.Release(h, layout.Target{}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("the pool holds %d texts once every rendering is released", s.Len())
	}
}

// TestStoreLostText: a text a check cannot read back from the pool fails
// the rendering's release, naming its target, rather than being read as
// none.
func TestStoreLostText(t *testing.T) {
	objs, err := manifest.Read([]byte("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"))
	if err != nil {
		t.Fatal(err)
	}
	target := layout.Target{Cluster: "prod", Namespace: "shop"}
	s := NewStore()
	defer s.Close()
	r := render.New(&layout.Repo{}, render.Options{})
	h, err := s.Put(r, &render.Result{Target: target, Objects: objs}, factsFor)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Restore(context.Background(), r, target, h, parseServiceAccounts, Names{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.texts.Release(h.restored.lazy[0]); err != nil { // the pool loses the text
		t.Fatal(err)
	}
	if text, err := got.Objects[0].Text(); text != nil || err == nil {
		t.Fatalf("a lost text read as %q, %v", text, err)
	}
	if err := s.Release(h, target); err == nil || !strings.Contains(err.Error(), "prod/shop") {
		t.Errorf("Release = %v, want the lost text's failure, naming the target", err)
	}
}

// TestCodec: a stored rendering's objects and facts decode as they were
// encoded (facts with no words as no lists, still not nil); objects decoded together share the names they hold alike;
// every shortened or damaged encoding fails, without a panic.
func TestCodec(t *testing.T) {
	mk := func(name string, line int) manifest.Object {
		return manifest.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Namespace: "shop", Template: "namespaces/shop/templates/web.yaml",
			Source: manifest.Source{File: "namespaces/shop/charts/web-1.0.0.tgz", Member: "web/templates/deployment.yaml"}, Line: line, Column: 3}
	}
	objs := []manifest.Object{mk("web", 12), mk("api", 0), {Kind: "Secret", APIVersion: "v1", Name: "db", Line: -1}}
	facts := []Facts{{{"db", "env", "tls", "volume"}, {"migrate", "--all"}, {"0", "7"}, {"ENC"}}, {nil, nil, nil, nil}, nil}
	blob := encode(nil, objs, facts)
	names := Names{}
	a, af, err := decode(blob, names)
	if err != nil {
		t.Fatal(err)
	}
	wantFacts := []Facts{facts[0], {}, nil}
	if !reflect.DeepEqual(a, objs) || !reflect.DeepEqual(af, wantFacts) || af[1] == nil {
		t.Fatalf("decoded %+v %#v\nwant %+v %#v", a, af, objs, wantFacts)
	}
	b, _, err := decode(blob, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{a[0].APIVersion, b[1].APIVersion}, {a[0].Kind, b[0].Kind},
		{a[1].Namespace, b[0].Namespace}, {a[0].Template, b[1].Template}, {a[0].Source.Member, b[0].Source.Member}} {
		if unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("%q is held twice", pair[0])
		}
	}
	if empty, ef, err := decode(encode(nil, nil, nil), names); err != nil || empty != nil || ef != nil {
		t.Errorf("no objects decode as %+v, %v, %v", empty, ef, err)
	}
	for n := range len(blob) {
		if _, _, err := decode(blob[:n], Names{}); err == nil {
			t.Errorf("the first %d of %d bytes decode", n, len(blob))
		}
	}
	if _, _, err := decode(append(blob[:len(blob):len(blob)], 0), Names{}); err == nil {
		t.Error("a byte past the end decodes")
	}
}

// FuzzDecode: any bytes decode or fail, without a panic, and what decodes
// encodes to bytes that decode to the same.
func FuzzDecode(f *testing.F) {
	f.Add(encode(nil, []manifest.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", Line: 4}}, []Facts{{{"s", "env"}}}))
	f.Add([]byte{0x01, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		objs, facts, err := decode(b, Names{})
		if err != nil {
			return
		}
		again, againFacts, err := decode(encode(nil, objs, facts), Names{})
		if err != nil || !reflect.DeepEqual(again, objs) || !reflect.DeepEqual(againFacts, facts) {
			t.Fatalf("%x decodes as %+v %q, and that encoded decodes as %+v %q, %v", b, objs, facts, again, againFacts, err)
		}
	})
}

// TestFactsEmpty: facts are empty when they hold no word, however many
// lists they have.
func TestFactsEmpty(t *testing.T) {
	for _, c := range []struct {
		fs   Facts
		want bool
	}{
		{nil, true},
		{Facts{}, true},
		{Facts{nil, {}}, true},
		{Facts{nil, {"db"}}, false},
		{Facts{{""}}, false}, // one word, empty
	} {
		if got := c.fs.Empty(); got != c.want {
			t.Errorf("%#v.Empty() = %v, want %v", c.fs, got, c.want)
		}
	}
}
