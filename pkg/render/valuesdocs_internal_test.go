package render

import (
	"fmt"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// TestValuesDocs: a chart's values.yaml is parsed once and given again,
// as chartValuesDoc parses it, to every caller at once; a chart with none
// has none; and no more than valuesDocsKept are kept, the oldest let go.
func TestValuesDocs(t *testing.T) {
	mk := func(i int) *chart.Chart {
		return &chart.Chart{Raw: []*chart.File{{Name: "values.yaml", Data: fmt.Appendf(nil, "replicas: %d\nimage:\n  tag: v1\n", i)}}}
	}
	var m valuesDocs
	c := mk(0)
	copied := *c // a copy of a loaded chart shares its files
	first := m.of(c, false)
	if first == nil || len(first.Content) != 4 || first.Content[1].Value != "0" {
		t.Fatalf("values.yaml parsed as %+v", first)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := m.of(&copied, false); got != first {
				t.Error("the same values.yaml parsed again")
			}
		})
	}
	wg.Wait()
	if m.of(&chart.Chart{}, false) != nil {
		t.Error("a chart without values.yaml has a document")
	}
	for i := 1; i <= valuesDocsKept; i++ {
		m.of(mk(i), false)
	}
	if len(m.docs) != valuesDocsKept || len(m.order) != valuesDocsKept {
		t.Errorf("%d documents kept, %d in order, want %d", len(m.docs), len(m.order), valuesDocsKept)
	}
	if again := m.of(c, false); again == first || again == nil || again.Content[1].Value != "0" {
		t.Error("the oldest document was not let go, or is not parsed again alike")
	}
}
