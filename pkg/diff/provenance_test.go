package diff_test

import (
	"testing"

	"github.com/repotool/repotool/pkg/diff"
)

// TestValueIn: a values scalar explains a field that is it, or holds it
// when it is a string long enough to tell; lists, maps and null explain
// nothing.
func TestValueIn(t *testing.T) {
	for _, tc := range []struct {
		name         string
		value, field any
		want         bool
	}{
		{"same string", "info", "info", true},
		{"inside a string", "dev.example.com", "https://dev.example.com/api", true},
		{"too short to tell", "ab", "cabd", false},
		{"an integer", 3, 3, true},
		{"an integer printed as a float", 3, float64(3), true},
		{"an integer in a string", 8080, "host:8080", true},
		{"a bool", true, true, true},
		{"another bool", true, false, false},
		{"null", nil, "x", false},
		{"a list", []any{"a"}, "a", false},
		{"a map", map[string]any{"a": "b"}, "b", false},
		{"a field that went", "info", nil, false},
	} {
		if got := diff.ValueIn(tc.value, tc.field); got != tc.want {
			t.Errorf("%s: valueIn(%v, %v) = %v, want %v", tc.name, tc.value, tc.field, got, tc.want)
		}
	}
}
