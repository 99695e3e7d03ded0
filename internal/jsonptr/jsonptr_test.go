package jsonptr_test

import (
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
