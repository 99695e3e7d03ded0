package jsonptr_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/jsonptr"
)

// TestEscape: RFC 6901's examples of tokens that need escaping, and one
// that does not.
func TestEscape(t *testing.T) {
	for token, want := range map[string]string{
		"a/b":                    "a~1b",
		"m~n":                    "m~0n",
		"~/":                     "~0~1",
		"checksum/config":        "checksum~1config",
		"app.kubernetes.io/name": "app.kubernetes.io~1name",
		"plain":                  "plain",
	} {
		if got := jsonptr.Escape(token); got != want {
			t.Errorf("Escape(%q) = %q, want %q", token, got, want)
		}
	}
}

func TestGet(t *testing.T) {
	v := map[string]any{"spec": map[string]any{"list": []any{"a", map[string]any{"k/x": int64(1)}}}}
	for _, tc := range []struct {
		tokens []string
		want   any
		ok     bool
	}{
		{[]string{"spec", "list", "1", "k/x"}, int64(1), true},
		{[]string{"spec", "list", "0"}, "a", true},
		{nil, v, true},
		{[]string{"spec", "missing"}, nil, false},
		{[]string{"spec", "list", "2"}, nil, false},
		{[]string{"spec", "list", "x"}, nil, false},
		{[]string{"spec", "list", "0", "deeper"}, nil, false},
	} {
		got, ok := jsonptr.Get(v, tc.tokens)
		if ok != tc.ok || tc.ok && tc.tokens != nil && got != tc.want {
			t.Errorf("Get(%q) = %v, %v; want %v, %v", tc.tokens, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSplit: Split undoes Escape token by token, keys holding "/" and "~"
// included, and the root has no token.
func TestSplit(t *testing.T) {
	for pointer, want := range map[string][]string{
		"":  nil,
		"/": nil,
		"/metadata/labels/app.kubernetes.io~1name": {"metadata", "labels", "app.kubernetes.io/name"},
		"/data/m~0n/0":  {"data", "m~n", "0"},
		"/a/~01":        {"a", "~1"},
		"spec/replicas": {"spec", "replicas"},
	} {
		got := jsonptr.Split(pointer)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("Split(%q) = %q, want %q", pointer, got, want)
		}
	}
	keys := []string{"app.kubernetes.io/name", "~/", "plain"}
	p := ""
	for _, k := range keys {
		p += "/" + jsonptr.Escape(k)
	}
	if got := jsonptr.Split(p); strings.Join(got, "|") != strings.Join(keys, "|") {
		t.Errorf("Split(Escape) = %q, want %q", got, keys)
	}
}

// FuzzSplit: every pointer made of escaped tokens splits back into them.
func FuzzSplit(f *testing.F) {
	f.Add("app.kubernetes.io/name", "~0~1")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := jsonptr.Split("/" + jsonptr.Escape(a) + "/" + jsonptr.Escape(b))
		if len(got) != 2 || got[0] != a || got[1] != b {
			t.Errorf("Split(Escape(%q, %q)) = %q", a, b, got)
		}
	})
}

func TestJoinSplit(t *testing.T) {
	for _, p := range []string{"", "/a", "/metadata/labels/app.kubernetes.io~1name", "/a~0b/0"} {
		if got := jsonptr.Join(jsonptr.Split(p)); got != p {
			t.Errorf("Join(Split(%q)) = %q", p, got)
		}
	}
}

func TestChanged(t *testing.T) {
	a := map[string]any{"spec": map[string]any{"tags": []any{"a"}, "n": int64(1)}, "keep": "x"}
	b := map[string]any{"spec": map[string]any{"tags": []any{"a", "b"}, "n": int64(2)}, "keep": "x", "new": map[string]any{"k/1": true}}
	want := []string{"/new", "/spec/n", "/spec/tags/1"}
	if got := jsonptr.Changed("", a, b); !slices.Equal(got, want) {
		t.Errorf("Changed = %q, want %q", got, want)
	}
}

func TestWith(t *testing.T) {
	orig := map[string]any{"spec": map[string]any{"tags": []any{"a", "b"}, "n": 1}}
	for _, tc := range []struct {
		ptr    string
		x      any
		remove bool
		want   string
	}{
		{"/spec/n", 2, false, `{"spec":{"n":2,"tags":["a","b"]}}`},
		{"/spec/tags/2", "c", false, `{"spec":{"n":1,"tags":["a","b","c"]}}`},
		{"/spec/tags/0", nil, true, `{"spec":{"n":1,"tags":["b"]}}`},
		{"/spec/new/deep", true, false, `{"spec":{"n":1,"new":{"deep":true},"tags":["a","b"]}}`},
		{"/spec/n", nil, true, `{"spec":{"tags":["a","b"]}}`},
		{"/spec/missing/x", nil, true, `{"spec":{"n":1,"tags":["a","b"]}}`},
		{"/spec/tags/9", "z", false, `{"spec":{"n":1,"tags":["a","b"]}}`},
		{"/spec/n/x", "z", false, `{"spec":{"n":1,"tags":["a","b"]}}`},
	} {
		got, _ := json.Marshal(jsonptr.With(orig, jsonptr.Split(tc.ptr), tc.x, tc.remove))
		if string(got) != tc.want {
			t.Errorf("With(%s, %v, %v) = %s, want %s", tc.ptr, tc.x, tc.remove, got, tc.want)
		}
	}
	if b, _ := json.Marshal(orig); string(b) != `{"spec":{"n":1,"tags":["a","b"]}}` {
		t.Errorf("With changed its input: %s", b)
	}
}
