package hydrate

import (
	"bytes"
	"slices"
	"testing"
)

// TestDocuments: a file is cut before each line that starts with "---",
// and put back together byte for byte.
func TestDocuments(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a: 1\n", []string{"a: 1\n"}},
		{"---\na: 1\n---\nb: 2", []string{"---\na: 1\n", "---\nb: 2"}},
		{"x\n----\ny\n--- # c\n", []string{"x\n", "----\ny\n", "--- # c\n"}},
		{"a: '---'\n  ---\n", []string{"a: '---'\n  ---\n"}},
	} {
		var got []string
		for d := range documents([]byte(tc.in)) {
			got = append(got, string(d))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzDocuments: the documents put together are the file.
func FuzzDocuments(f *testing.F) {
	f.Add([]byte("---\na: 1\n---\nb: 2\n"))
	f.Add([]byte("\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		for d := range documents(data) {
			if len(d) == 0 {
				t.Fatal("an empty document")
			}
			got = append(got, d...)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%q put together as %q", data, got)
		}
	})
}
