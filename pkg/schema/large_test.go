package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/repotool/repotool/pkg/schema"
)

// TestValidateLargeDocuments: documents over the size Validate takes one
// at a time, validated from several goroutines at once, give what each
// gives alone.
func TestValidateLargeDocuments(t *testing.T) {
	var docs []string
	for i := range 4 {
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-%d\ndata:\n", i)
		for k := range 4000 {
			fmt.Fprintf(&b, "  key-%05d: %q\n", k, strings.Repeat("v", 20))
		}
		if i%2 == 1 {
			b.WriteString("spec: {replicas: 1}\n") // a ConfigMap has no spec
		}
		docs = append(docs, b.String())
	}
	alone := make([]schema.Result, len(docs))
	for i, d := range docs {
		if len(d) <= 64<<10 {
			t.Fatalf("document %d has %d bytes: not large", i, len(d))
		}
		v, err := schema.New(schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = v.Validate("1.33.0", []byte(d))
	}
	if alone[0].Status != schema.Valid || alone[1].Status != schema.Invalid {
		t.Fatalf("alone: %v, %v", alone[0].Status, alone[1].Status)
	}
	v, err := schema.New(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	together := make([]schema.Result, len(docs))
	done := make(chan struct{})
	for i, d := range docs {
		go func() {
			together[i] = v.Validate("1.33.0", []byte(d))
			done <- struct{}{}
		}()
	}
	for range docs {
		<-done
	}
	if diff := cmp.Diff(alone, together, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("validated together (-alone +together):\n%s", diff)
	}
}
