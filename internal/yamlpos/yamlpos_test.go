package yamlpos

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

func TestErrorLine(t *testing.T) {
	tests := []struct {
		doc      string
		wantLine int
	}{
		{"a: 1\nb: [1, 2\nc: 3\n", 2},   // parser error: unclosed flow sequence opened on line 2
		{"a: 1\n  b: 2\n", 2},           // scanner error
		{"a:\n  - 1\n b: 2\n", 3},       // parser error: bad indentation on line 3
		{"a: 1\nb: \"x\n", 2},           // scanner error: unterminated string
		{"a: 1\nb: 2\nc: @x\n", 3},      // scanner error: reserved indicator
		{"list:\n- a\n- b\n x: 1\n", 4}, // parser error
	}
	for _, tt := range tests {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.doc), &n)
		if err == nil {
			t.Errorf("%q: no error", tt.doc)
			continue
		}
		if got, msg := ErrorLine(err); got != tt.wantLine || msg == "" {
			t.Errorf("%q: ErrorLine(%v) = %d, %q; want line %d", tt.doc, err, got, msg, tt.wantLine)
		}
	}
}

func TestLookup(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("a:\n  b:\n    c: 1\nd: 2\n"), &n); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		keys []string
		line int
	}{{[]string{"a"}, 1}, {[]string{"a", "b", "c"}, 3}, {[]string{"d"}, 4}, {[]string{"a", "x"}, 0}, {[]string{"d", "x"}, 0}} {
		if _, got := Lookup(&n, tt.keys...); got != tt.line {
			t.Errorf("Lookup(%v) line = %d, want %d", tt.keys, got, tt.line)
		}
	}
	if got := Line(&n, 7, "nope"); got != 7 {
		t.Errorf("Line fallback = %d, want 7", got)
	}
}

func TestRedact(t *testing.T) {
	got := Redact("cannot unmarshal !!str `hunter2` into int and `x`")
	if want := "cannot unmarshal !!str `…` into int and `…`"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
