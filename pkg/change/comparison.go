package change

import "github.com/repotool/repotool/pkg/values"

// Comparison is how one namespace's targets on several clusters differ
// (repotool compare): the drift the layout is meant to keep small.
type Comparison struct {
	Namespace string   `json:"namespace"`
	Clusters  []string `json:"clusters"`
	// Values are the effective values that differ, one side per cluster
	// in Clusters' order (values.Compare).
	Values []values.Difference `json:"values"`
	// Objects compares the rendered objects of two clusters, the first as
	// base; nil when more than two are compared.
	Objects *Result `json:"objects,omitempty"`
}
