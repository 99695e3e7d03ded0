package render

import (
	"bytes"
	"testing"
)

// FuzzDecodeRedactor: a held rendering's strings decode as they were
// encoded (the decrypted values of a redactor built as a rendering builds
// it), and any other bytes decode or fail without a panic.
func FuzzDecodeRedactor(f *testing.F) {
	f.Add("tok_prod_storefront", "80", []byte{2, 3, 1, 'a'})
	f.Add("", "pässwörd", []byte{})
	f.Fuzz(func(t *testing.T, a, b string, other []byte) {
		red := newRedactor()
		red.add(map[string]any{"a": a, "list": []any{b, 12345678, true}})
		red.seal()
		enc := red.encode()
		got, err := decodeRedactor(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{a, b, a + b, "12345678", "none"} {
			if got.holds(s) != red.holds(s) {
				t.Fatalf("holds a string: %v, want %v", got.holds(s), red.holds(s))
			}
		}
		if again := got.encode(); !bytes.Equal(again, enc) {
			t.Fatal("decoded strings encode otherwise")
		}
		if got, err := decodeRedactor(other); err == nil && got == nil && other != nil {
			t.Fatal("bytes decoded as no strings")
		}
	})
}
