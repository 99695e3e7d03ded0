package layout

import (
	"testing"
	"testing/fstest"
	"unicode/utf16"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// utf16LE is s in UTF-16, little-endian, after a byte order mark: YAML
// the parser reads as well as UTF-8.
func utf16LE(s string) string {
	out := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return string(out)
}

// parsedSops is what a whole parse finds: the SOPS metadata of the first
// document, as File.Docs learns it.
func parsedSops(p string, data []byte) *sopsfile.Metadata {
	docs, _ := parseDocs(p, data)
	if len(docs) == 0 {
		return nil
	}
	md, _ := sopsfile.InspectNode(docs[0])
	return md
}

// TestSopsWithoutParse: Sops tells a file whose bytes cannot spell the
// metadata's key without parsing it, and every file, spelt however, as a
// whole parse does: escapes, UTF-16, block scalars, quoted keys, a key
// that is an alias, a template.
func TestSopsWithoutParse(t *testing.T) {
	sopsBlock := ": {mac: m, version: 3.9.0, age: [{recipient: age1x, enc: e}]}\n"
	cases := map[string]struct {
		data      string
		encrypted bool
		parsed    bool // Sops had to parse it to tell
	}{
		"plain.yaml":    {"a: 1\nb: [x, y]\n", false, false},
		"template.yaml": {"{{- if .Values.on }}\nkind: ConfigMap\n{{- end }}\n", false, false},
		"sops.yaml":     {sopsYAML, true, true},
		"escaped.yaml":  {`"\x73ops"` + sopsBlock, true, true},
		"joined.yaml":   {"? \"so\\\n  ps\"\n" + sopsBlock, true, true},
		"utf16.yaml":    {utf16LE(sopsYAML), true, true},
		"block.yaml":    {"? |-\n  sops\n" + sopsBlock, true, true},
		"quoted.yaml":   {"'sops'" + sopsBlock, true, true},
		"alias.yaml":    {"x: &k sops\n*k" + sopsBlock, false, true},
		"mention.yaml":  {"note: not sops-encrypted\n", false, true},
		"json.json":     {"{\"a\": \"\\u0041\"}\n", false, true},
		"folded.yaml":   {"? >-\n  so\n  ps\n" + sopsBlock, false, false},
	}
	mfs := fstest.MapFS{}
	for p, c := range cases {
		mfs[p] = &fstest.MapFile{Data: []byte(c.data)}
	}
	files := NewFiles(mfs)
	for p, c := range cases {
		if whole := parsedSops(p, []byte(c.data)) != nil; whole != c.encrypted {
			t.Fatalf("%s: a whole parse finds metadata %v, the case says %v", p, whole, c.encrypted)
		}
		x := files.Get(p)
		if got := x.Sops() != nil; got != c.encrypted {
			t.Errorf("%s: Sops found metadata %v, want %v", p, got, c.encrypted)
		}
		if x.parsed != c.parsed {
			t.Errorf("%s: parsed to tell %v, want %v", p, x.parsed, c.parsed)
		}
	}
	// Forgotten, a file told without a parse stays told.
	files.letGo(func(*File) bool { return true })
	files.Forget()
	if !files.sopsless.Has(nil, "plain.yaml") || !files.sopsless.Has(nil, "template.yaml") || files.sopsless.Has(nil, "sops.yaml") {
		t.Fatal("the files known to hold no SOPS metadata were not kept as such")
	}
	if x := files.Get("plain.yaml"); !x.noSops.Load() || x.Sops() != nil || x.Err() != nil {
		t.Fatal("a file forgotten once told holds SOPS metadata, or fails")
	}
}

// FuzzSpellsNoSops: no file whose bytes spellsNoSops passes has metadata
// a whole parse finds.
func FuzzSpellsNoSops(f *testing.F) {
	for _, seed := range []string{sopsYAML, `"\x73ops": {mac: m, version: "3"}`, "? |-\n  sops\n: {mac: m, version: v}\n",
		"x: &k sops\n*k : {mac: m, version: v}\n", utf16LE(sopsYAML), "sop: 1\ns: {mac: m, version: v}\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if spellsNoSops(data) && parsedSops("f.yaml", data) != nil {
			t.Fatalf("%q: bytes taken to spell no SOPS metadata, which a parse finds", data)
		}
	})
}
