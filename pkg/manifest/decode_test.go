package manifest_test

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/manifest"
)

// decodeCases are documents whose reading Kubernetes depends on: YAML 1.1
// scalars, numbers of every size, anchors, merge keys, duplicate and
// non-string keys, tags, and documents sigs.k8s.io/yaml refuses.
var decodeCases = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
	"a: 1\nb: -2\nc: 1.5\nd: 1e3\ne: 0x1F\nf: 017\ng: 0o17\nh: +12\n",
	"big: 9007199254740993\nbigger: 18446744073709551615\nneg: -9223372036854775808\nhuge: 1e400\n",
	"inf: .inf\n",
	"nan: .nan\n",
	"y: yes\nn: no\non: on\noff: off\nt: True\nf: FALSE\nq: 'yes'\n",
	"n1: null\nn2: ~\nn3:\nempty: {}\nlist: []\n",
	"",
	"# only a comment\n",
	"---\n",
	"base: &b\n  x: 1\n  y: [1, 2]\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n",
	"a: 1\na: 2\n",
	"1: one\n2: two\n",
	"1.5: x\n",
	"~: x\n",
	"[1, 2]: x\n",
	"{a: 1}: x\n",
	"bin: !!binary aGVsbG8=\n",
	"badbin: !!binary //79\n",
	"ts: 2001-12-14\nts2: 2001-12-14t21:59:43.10-05:00\n",
	"tagged: !!timestamp 2001-12-14\n",
	"str: !!str 12\nint: !!int \"12\"\nfloat: !!float 1\n",
	"- a\n- b\n",
	"just a string\n",
	"42\n",
	"a: [1, {b: [2, {c: null}]}]\n",
	"esc: \"\\xff\\u00e9\\t\"\nuni: héllo\n",
	"a: b: c\n",
	"a:\n\t- tab\n",
	"key: |\n  line one\n  line two\nfolded: >\n  one\n  two\n",
	"- &x [*x]\n",
	"a: &a [*a, *a]\n",
	"doc: 1\n---\ndoc: 2\n",
	"a:\n  b: 1\n  b: 1\n",
	"list:\n- x: 1\n  x: 2\n",
	"base: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n",
}

// TestDecodeLikeSigsYAML requires Decode to give what sigs.k8s.io/yaml's
// Unmarshal gives, value and error, for the documents Kubernetes depends
// on reading alike.
func TestDecodeLikeSigsYAML(t *testing.T) {
	for _, doc := range decodeCases {
		sameAsSigs(t, []byte(doc), manifest.Decode, sigsUnmarshal)
	}
}

// TestDecodeStrictLikeSigsYAML requires DecodeStrict to give what
// sigs.k8s.io/yaml's UnmarshalStrict gives, value and error: a key set
// twice is an error, in the words kubeconform reports.
func TestDecodeStrictLikeSigsYAML(t *testing.T) {
	for _, doc := range decodeCases {
		sameAsSigs(t, []byte(doc), manifest.DecodeStrict, sigsUnmarshalStrict)
	}
	if _, err := manifest.DecodeStrict([]byte("a:\n  b: 1\n  b: 1\n")); err == nil || !strings.Contains(err.Error(), `key "b" already set in map`) {
		t.Errorf("a key set twice: %v, want sigs.k8s.io/yaml's error", err)
	}
}

// FuzzDecode holds Decode to sigs.k8s.io/yaml's Unmarshal on any input.
func FuzzDecode(f *testing.F) {
	for _, doc := range decodeCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { sameAsSigs(t, doc, manifest.Decode, sigsUnmarshal) })
}

// FuzzDecodeStrict holds DecodeStrict to sigs.k8s.io/yaml's
// UnmarshalStrict on any input.
func FuzzDecodeStrict(f *testing.F) {
	for _, doc := range decodeCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { sameAsSigs(t, doc, manifest.DecodeStrict, sigsUnmarshalStrict) })
}

func sigsUnmarshal(doc []byte, out any) error       { return yaml.Unmarshal(doc, out) }
func sigsUnmarshalStrict(doc []byte, out any) error { return yaml.UnmarshalStrict(doc, out) }

// sameAsSigs requires decode to give what sigs gives for doc.
func sameAsSigs(t *testing.T, doc []byte, decode func([]byte) (map[string]any, error), sigs func([]byte, any) error) {
	t.Helper()
	var want map[string]any
	wantErr := sigs(doc, &want)
	for range 8 {
		var again map[string]any
		if sigs(doc, &again) != nil || !reflect.DeepEqual(want, again) {
			// Two keys with one spelling (TestDecodeKeyClash):
			// sigs.k8s.io/yaml's own result changes from one call to
			// the next.
			return
		}
	}
	got, err := decode(doc)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("%q: error %v, sigs.k8s.io/yaml's %v", doc, err, wantErr)
	case err != nil && err.Error() != wantErr.Error():
		t.Errorf("%q: error %q, sigs.k8s.io/yaml's %q", doc, err, wantErr)
	case !reflect.DeepEqual(got, want):
		t.Errorf("%q: %#v, sigs.k8s.io/yaml's %#v", doc, got, want)
	}
}

// TestDecodeKeyClash: two keys that JSON spells alike (true and "true")
// are left to sigs.k8s.io/yaml, whose choice between them is its own; the
// result is one of them, never a mix.
func TestDecodeKeyClash(t *testing.T) {
	for _, doc := range []string{"true: a\n\"true\": b\n", "1: a\n\"1\": b\n"} {
		got, err := manifest.Decode([]byte(doc))
		if err != nil || len(got) != 1 {
			t.Errorf("%q: %v %v, want one key", doc, got, err)
		}
	}
}
