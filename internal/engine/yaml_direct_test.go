package engine

import (
	"math"
	"strings"
	"testing"

	goyaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"
)

// viaJSON is toYaml the way Helm does it: sigs.k8s.io/yaml's Marshal.
func viaJSON(v any) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

// TestYAMLTreeLikeJSON requires toYAML to print what the JSON route
// prints, for numbers of every kind and size, the strings the YAML reader
// refuses, nil maps and lists, and named map types.
func TestYAMLTreeLikeJSON(t *testing.T) {
	values := []any{
		nil, true, "s", "", "yes", "123", "a: b", "multi\nline\n", "tab\there", "<&>", "\u2028", "\u0085", "\u007f", "\u0080", "\ufeff", "\ufffe", "\ufffd",
		"\xff", 0, 1, -1, math.MaxInt64, math.MinInt64, uint64(math.MaxUint64), int8(-3), uint16(7),
		0.0, math.Copysign(0, -1), 1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), float32(1.5),
		map[string]any(nil), []any(nil), map[string]any{}, []any{},
		map[string]any{"b": 1, "a": []any{1.0, "x", nil, map[string]any{"c": 2.5}}, "10": "n", "9": "m", "true": true},
		chartutil.Values{"k": 1.0, "nested": chartutil.Values{"x": "y"}},
		map[string]any{"bad": "\x00\x7f"}, map[string]any{"\x7f": 1},
		map[string]string{"typed": "map"}, []string{"typed", "list"},
	}
	for _, v := range values {
		if got, want := toYAML(v), viaJSON(v); got != want {
			t.Errorf("toYAML(%#v) = %q, the JSON route %q", v, got, want)
		}
	}
}

// FuzzYAMLTree holds toYAML to the JSON route on values decoded from the
// fuzzer's YAML, the way values files and dict make them.
func FuzzYAMLTree(f *testing.F) {
	for _, s := range []string{"a: 1\nb: [1.5, x, null]\n", "x: 1e21\n", "- \"\\x7f\"\n", "k: !!binary AAEC\n", "t: 2001-12-14\n", "n: 18446744073709551615\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if goyaml.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if got, want := toYAML(v), viaJSON(v); got != want {
			t.Errorf("toYAML(%#v) = %q, the JSON route %q", v, got, want)
		}
	})
}
