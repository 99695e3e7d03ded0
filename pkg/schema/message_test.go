package schema

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSafeMessage: every message form jsonschema writes comes out without
// the object's value (here always "S3cr3t…", in the forms jsonschema prints
// it), keeping what the schema says.
func TestSafeMessage(t *testing.T) {
	tests := []struct {
		in, want string
		unknown  []string
	}{
		{"'S3cr3t-v4lue' does not match pattern '^[a-z]+$'", "does not match the pattern '^[a-z]+$'", nil},
		{"'S3cr3t ' does not match pattern ' does not match pattern 'x'", "does not match the pattern 'x'", nil},
		{"'S3cr3t-v4lue' is not valid date-time: cannot parse \"S3cr3t-v4lue\" as \"2006\"", "is not a valid date-time", nil},
		{"'S3cr3t' is not valid email: missing @", "is not a valid email", nil},
		{"'S3cr3t' is not valid made-up-format: no", "does not have the format the schema requires", nil},
		{"minimum: got 99999123, want 1", "must be at least 1", nil},
		{"maximum: got 9.9999123e+07, want 65535", "must be at most 65535", nil},
		{"exclusiveMaximum: got 99999123, want 10", "must be less than 10", nil},
		{"multipleOf: got 99999123, want 2", "must be a multiple of 2", nil},
		{"minimum: got 4,444,555,100, want 10,000,000,000", "must be at least 10,000,000,000", nil},
		{"minimum: got 9.9999123×10⁰⁷, want 1×10¹⁰", "must be at least 1×10¹⁰", nil},
		{"minLength: got 3, want 8", "must be at least 8 characters long", nil},
		{"maxLength: got 99999123, want 63", "must be at most 63 characters long", nil},
		{"minItems: got 0, want 1", "must have at least 1 items", nil},
		{"got string, want integer", "got string, want integer", nil},
		{"got number, want string or integer", "got number, want string or integer", nil},
		{"value must be one of 'Always', 'Never'", "value must be one of 'Always', 'Never'", nil},
		{"value must be one of 'Always', 'Never', <nil>", "value must be one of 'Always', 'Never'", nil},
		{"value must be one of 'big', <nil>", "value must be 'big'", nil},
		{"missing property 'name'", "missing property 'name'", nil},
		{"missing properties 'b', 'a'", "missing properties 'a', 'b'", nil},
		{"additional properties 'zeta', 'alpha', 'mid' not allowed", "additional properties 'alpha', 'mid', 'zeta' not allowed", []string{"alpha", "mid", "zeta"}},
		{"'oneOf' failed, none matched", "'oneOf' failed, none matched", nil},
		{"value is not 'base64' encoded: illegal base64 data at input byte 4 S3cr3t", "does not match the schema", nil},
		{"something new about 'S3cr3t'", "does not match the schema", nil},
	}
	for _, tt := range tests {
		got, unknown := safeMessage(tt.in)
		if got != tt.want || !slices.Equal(unknown, tt.unknown) {
			t.Errorf("safeMessage(%q) = %q, %q; want %q, %q", tt.in, got, unknown, tt.want, tt.unknown)
		}
		if strings.Contains(got, "S3cr3t") || strings.Contains(got, "9999") {
			t.Errorf("safeMessage(%q) quotes the value: %q", tt.in, got)
		}
	}
}

func TestSafeError(t *testing.T) {
	err := safeError(errors.New("yaml: unmarshal errors: line 3: cannot unmarshal !!str `S3cr3t` into int; found 'S3cr3t'"))
	if strings.Contains(err.Error(), "S3cr3t") {
		t.Errorf("safeError kept the value: %v", err)
	}
	if safeError(nil) != nil {
		t.Error("safeError(nil) != nil")
	}
}
