package output

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestPlainNode: the nodes plainNode makes encode to the bytes yaml's
// Node.Encode would give, and it declines what it cannot make.
func TestPlainNode(t *testing.T) {
	for _, v := range []any{
		true, false, 0, -1, 42, int64(1) << 40, "v", "k1f", "a.b/c-d_e", "_x", "Yes", "yes", "NO", "on", "Off", "null", "Null", "true",
		"y", "n", "1", "1.5", "0x1f", "1e3", "a:b", "a b", "a#b", "", "-a", ".inf", ".nan", "~", "a\nb", "é", "k", "E", "e1", "inf", "nan",
		3.5, nil, []any{"a"}, "NaN", "Infinity", "x.y.z", "a/", "a-", "abc_DEF-123.4/5",
		"1f", "1e5", "1E5", "0x1f", "0o17", "0b101", "0x1p3", "1d", "9a8b7c", "12345678901234567890a", "99999999999999999999", "1e", "0xZ",
	} {
		fast, ok := plainNode(v)
		var slow yaml.Node
		if err := slow.Encode(v); err != nil {
			t.Fatal(err)
		}
		want, err := yaml.Marshal(&slow)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		got, err := yaml.Marshal(fast)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%#v: plainNode prints %q, Node.Encode %q", v, got, want)
		}
	}
}

// FuzzPlainNode: for any string plainNode takes, its node prints as
// Node.Encode's does.
func FuzzPlainNode(f *testing.F) {
	for _, s := range []string{"v", "yes", "a.b", "_", "0x1", "null", "1f", "1e5", "0b1", "0x1p3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := plainNode(s)
		if !ok {
			return
		}
		var slow yaml.Node
		if err := slow.Encode(s); err != nil {
			t.Fatal(err)
		}
		want, _ := yaml.Marshal(&slow)
		got, _ := yaml.Marshal(fast)
		if string(got) != string(want) {
			t.Fatalf("%q: plainNode prints %q, Node.Encode %q", s, got, want)
		}
	})
}
