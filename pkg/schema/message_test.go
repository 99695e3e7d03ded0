package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestMessagesNeverQuoteValues validates a value that looks like a secret
// ("S3cr3t…", 99999123) against every kind of constraint: each message says
// what the schema wants, and never the value.
func TestMessagesNeverQuoteValues(t *testing.T) {
	tests := []struct {
		schema, value, want string
		unknown, missing    []string
	}{
		{`{"type":"string","pattern":"^[a-z]+$"}`, `"S3cr3t-v4lue"`, "does not match the pattern '^[a-z]+$'", nil, nil},
		{`{"type":"string","format":"date-time"}`, `"S3cr3t-v4lue"`, "is not a valid date-time", nil, nil},
		{`{"type":"string","format":"email"}`, `"S3cr3t"`, "is not a valid email", nil, nil},
		{`{"type":"string","format":"duration"}`, `"S3cr3t"`, "is not a valid duration", nil, nil},
		{`{"type":"integer","minimum":100000000}`, `99999123`, "must be at least 1×10⁰⁸", nil, nil},
		{`{"type":"integer","maximum":65535}`, `99999123`, "must be at most 65,535", nil, nil},
		{`{"type":"integer","maximum":10,"exclusiveMaximum":true}`, `99999123`, "must be less than 10", nil, nil},
		{`{"type":"integer","multipleOf":2}`, `99999123`, "must be a multiple of 2", nil, nil},
		{`{"type":"string","minLength":80}`, `"S3cr3t"`, "must be at least 80 characters long", nil, nil},
		{`{"type":"string","maxLength":3}`, `"S3cr3t"`, "must be at most 3 characters long", nil, nil},
		{`{"type":"array","minItems":2}`, `["S3cr3t"]`, "must have at least 2 items", nil, nil},
		{`{"type":"integer"}`, `"S3cr3t"`, "got string, want null or integer", nil, nil},
		{`{"type":"string","enum":["Always","Never"]}`, `"S3cr3t"`, "value must be one of 'Always', 'Never'", nil, nil},
		{`{"type":"string","enum":["big"]}`, `"S3cr3t"`, "value must be 'big'", nil, nil},
		{`{"type":"object","required":["name","b"],"properties":{"name":{"type":"string"},"b":{"type":"string"}}}`, `{}`, "missing properties 'b', 'name'", nil, []string{"b", "name"}},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"zeta":"S3cr3t","alpha":"S3cr3t","a":"ok"}`, "additional properties 'alpha', 'zeta' not allowed", []string{"alpha", "zeta"}, nil},
		{`{"type":"array","uniqueItems":true}`, `["S3cr3t","S3cr3t"]`, "items at 0 and 1 are equal", nil, nil},
		{`{"type":"string","not":{"enum":["S3cr3t"]}}`, `"S3cr3t"`, "'not' failed", nil, nil},
	}
	for i, tt := range tests {
		v, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		var prop map[string]any
		if err := json.Unmarshal([]byte(tt.schema), &prop); err != nil {
			t.Fatal(err)
		}
		v.AddCRD("test.io", "v1", "Thing", map[string]any{"type": "object", "properties": map[string]any{"v": prop}})
		r := v.Validate("v1.34.0", []byte(fmt.Sprintf("apiVersion: test.io/v1\nkind: Thing\nmetadata: {name: t}\nv: %s\n", tt.value)))
		if r.Status != Invalid || len(r.Errors) != 1 {
			t.Errorf("%d %s: status %s, errors %+v", i, tt.schema, r.Status, r.Errors)
			continue
		}
		e := r.Errors[0]
		path := "/v"
		if e.Message != tt.want || e.Path != path || e.Keyword == "" || !slices.Equal(e.Unknown, tt.unknown) || !slices.Equal(e.Missing, tt.missing) {
			t.Errorf("%d %s: got %+v, want %q at %s (unknown %v, missing %v)", i, tt.schema, e, tt.want, path, tt.unknown, tt.missing)
		}
		if strings.Contains(e.Message, "S3cr3t") || strings.Contains(e.Message, "9999") {
			t.Errorf("%d: the message quotes the value: %q", i, e.Message)
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
