package lint

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/repotool/repotool/internal/textpool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestCompact: the content of kinds the cross-object rules do not read is
// let go, with their Secret references and a Job's words kept as facts;
// contentOf parses it again, as it was.
func TestCompact(t *testing.T) {
	stream := []byte(`---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          envFrom:
            - secretRef:
                name: web-env
---
apiVersion: batch/v1
kind: Job
metadata:
  name: certgen
spec:
  template:
    spec:
      containers:
        - name: c
          args: ["create", "--secret-name=webhook-tls"]
---
apiVersion: v1
kind: Secret
metadata:
  name: web-env
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: es
`)
	objs, err := manifest.Read(stream)
	if err != nil {
		t.Fatal(err)
	}
	before := make([]map[string]any, len(objs))
	for i := range objs {
		before[i] = objs[i].Content
	}
	res := &render.Result{Objects: objs}
	c := compacted{}
	c.compact(res)
	deploy, job, secret, es := &res.Objects[0], &res.Objects[1], &res.Objects[2], &res.Objects[3]
	if deploy.Content != nil || job.Content != nil {
		t.Error("the Deployment's and the Job's content were kept")
	}
	if secret.Content == nil || es.Content == nil {
		t.Error("the Secret's or the ExternalSecret's content was let go")
	}
	if got := c.secretUses(deploy); !reflect.DeepEqual(got, []secretUse{{"web-env", "envFrom"}}) {
		t.Errorf("Deployment's Secret uses = %v", got)
	}
	if got := c.jobWordsOf(job); !reflect.DeepEqual(got, []string{"create", "--secret-name", "webhook-tls"}) {
		t.Errorf("Job's words = %v", got)
	}
	for i := range res.Objects {
		if got := contentOf(&res.Objects[i]); !reflect.DeepEqual(got, before[i]) {
			t.Errorf("contentOf(%s) = %v, want %v", res.Objects[i].ID(), got, before[i])
		}
	}
}

// TestStoreRestore: renderings stored and restored come back as they were
// (objects, texts, the content of the kinds kept parsed, facts), a text two
// renderings share is held once, and so is their list of objects when they
// name and place them alike; the texts of the kinds whose content was let
// go stay in the pool, read from there, until the rendering is released;
// the pool is empty once every rendering is.
func TestStoreRestore(t *testing.T) {
	shared := "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n"
	streams := []string{
		"---\n" + shared + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
		"---\n" + shared + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: api\n          envFrom:\n            - secretRef:\n                name: api-env\n" +
			"---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: certgen\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: c\n          args: [\"create\", \"--secret-name=webhook-tls\"]\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leaked\ndata:\n  token: ENC[AES256_GCM,data:abc=,type:str]\n",
	}
	facts, texts := compacted{}, textpool.New()
	r := render.New(&layout.Repo{}, render.Options{})
	var want [][]manifest.Object
	var wantFacts [][]*objectFacts
	var held []*stored
	for _, s := range streams {
		objs, err := manifest.Read([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		res := &render.Result{Objects: objs}
		facts.compact(res)
		want = append(want, slices.Clone(res.Objects))
		var fs []*objectFacts
		for k := range res.Objects {
			fs = append(fs, facts[&res.Objects[k]])
		}
		wantFacts = append(wantFacts, fs)
		st, err := store(r, res, facts, texts)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, st)
	}
	if f := wantFacts[2]; f[0] == nil || len(f[0].uses) != 1 || f[1] == nil || len(f[1].jobWords) != 3 || f[2] == nil || !f[2].sopsValue {
		t.Fatalf("the third rendering's facts are %+v, %+v, %+v: want a Secret reference, a Job's words and a SOPS value to store", f[0], f[1], f[2])
	}
	if texts.Len() != 8 || len(facts) != 0 {
		t.Fatalf("the pool holds %d texts (want 8: six objects' and the first two renderings' list of objects, alike, once, the third's) and %d facts are left out of the stored renderings", texts.Len(), len(facts))
	}
	for i, st := range held {
		res, err := st.restore(context.Background(), r, layout.Target{}, facts, texts, interned{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range want[i] {
			w, g := want[i][k], res.Objects[k]
			if g.YAML != nil && w.Content == nil {
				t.Errorf("rendering %d, object %s: its text was restored, want it read from the pool", i, g.ID())
			}
			if w.ID() != g.ID() || string(w.YAML) != string(textOf(&g)) || !reflect.DeepEqual(w.Content, g.Content) || w.Line != g.Line {
				t.Errorf("rendering %d, object %d restored as %s (content %v), want %s (content %v)", i, k, g.ID(), g.Content, w.ID(), w.Content)
			}
			got, kept := facts[&res.Objects[k]]
			if kept != (w.Content == nil) {
				t.Errorf("rendering %d, object %s: facts given back %v, want %v", i, g.ID(), kept, w.Content == nil)
			}
			if kept && !reflect.DeepEqual(got, wantFacts[i][k]) {
				t.Errorf("rendering %d, object %s: facts %+v given back, want %+v", i, g.ID(), got, wantFacts[i][k])
			}
		}
	}
	if texts.Len() != 5 {
		t.Errorf("the pool holds %d texts once every rendering is restored, want 5: the Deployments', the Job's and the ConfigMap's, read from there", texts.Len())
	}
	for _, st := range held {
		if err := st.release(texts, layout.Target{}); err != nil {
			t.Fatal(err)
		}
	}
	if texts.Len() != 0 {
		t.Errorf("the pool holds %d texts once every rendering is released", texts.Len())
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
	res := &render.Result{Target: target, Objects: objs}
	facts, texts := compacted{}, textpool.New()
	facts.compact(res)
	r := render.New(&layout.Repo{}, render.Options{})
	st, err := store(r, res, facts, texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.restore(context.Background(), r, target, facts, texts, interned{})
	if err != nil {
		t.Fatal(err)
	}
	if err := texts.Release(st.restored.lazy[0]); err != nil { // the pool loses the text
		t.Fatal(err)
	}
	if text := textOf(&got.Objects[0]); text != nil {
		t.Fatalf("a lost text read as %q", text)
	}
	if err := st.release(texts, target); err == nil || !strings.Contains(err.Error(), "prod/shop") {
		t.Errorf("release = %v, want the lost text's failure, naming the target", err)
	}
}

// TestHeldCodec: a stored rendering's objects and facts decode as they
// were encoded; objects decoded together share the names they hold alike;
// every shortened or damaged encoding fails, without a panic.
func TestHeldCodec(t *testing.T) {
	mk := func(name string, line int) manifest.Object {
		return manifest.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Namespace: "shop", Template: "namespaces/shop/templates/web.yaml",
			Source: manifest.Source{File: "namespaces/shop/charts/web-1.0.0.tgz", Member: "web/templates/deployment.yaml"}, Line: line, Column: 3}
	}
	objs := []manifest.Object{mk("web", 12), mk("api", 0), {Kind: "Secret", APIVersion: "v1", Name: "db", Line: -1}}
	facts := []heldFacts{
		{Uses: [][2]string{{"db", "env"}, {"tls", "volume"}}, JobWords: []string{"migrate", "--all"}, Deprecated: []int{0, 7}, SOPSValue: true},
		{},
		{Kept: true},
	}
	blob := encodeHeld(nil, objs, facts)
	names := interned{}
	a, err := decodeHeld(blob, names)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Objects, objs) || !reflect.DeepEqual(a.Facts, facts) {
		t.Fatalf("decoded %+v %+v\nwant %+v %+v", a.Objects, a.Facts, objs, facts)
	}
	b, err := decodeHeld(blob, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{a.Objects[0].APIVersion, b.Objects[1].APIVersion}, {a.Objects[0].Kind, b.Objects[0].Kind},
		{a.Objects[1].Namespace, b.Objects[0].Namespace}, {a.Objects[0].Template, b.Objects[1].Template}, {a.Objects[0].Source.Member, b.Objects[0].Source.Member}} {
		if unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("%q is held twice", pair[0])
		}
	}
	if empty, err := decodeHeld(encodeHeld(nil, nil, nil), names); err != nil || empty.Objects != nil || empty.Facts != nil {
		t.Errorf("no objects decode as %+v, %v", empty, err)
	}
	for n := range len(blob) {
		if _, err := decodeHeld(blob[:n], interned{}); err == nil {
			t.Errorf("the first %d of %d bytes decode", n, len(blob))
		}
	}
	if _, err := decodeHeld(append(blob[:len(blob):len(blob)], 0), interned{}); err == nil {
		t.Error("a byte past the end decodes")
	}
}

// FuzzDecodeHeld: any bytes decode or fail, without a panic, and what
// decodes encodes to bytes that decode to the same.
func FuzzDecodeHeld(f *testing.F) {
	f.Add(encodeHeld(nil, []manifest.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", Line: 4}}, []heldFacts{{Uses: [][2]string{{"s", "env"}}}}))
	f.Add([]byte{0x01, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		held, err := decodeHeld(b, interned{})
		if err != nil {
			return
		}
		again, err := decodeHeld(encodeHeld(nil, held.Objects, held.Facts), interned{})
		if err != nil || !reflect.DeepEqual(again, held) {
			t.Fatalf("%x decodes as %+v, and that encoded decodes as %+v, %v", b, held, again, err)
		}
	})
}
