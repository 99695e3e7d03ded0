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
