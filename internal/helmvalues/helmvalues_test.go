package helmvalues_test

import (
	"errors"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/helmvalues"
)

// TestCounted: Helm 3 reads a values file's first document, and an error
// past it is none of its business; Helm 4 reads every one, and fails on
// any; Node merges what counts.
func TestCounted(t *testing.T) {
	a := &yamlv3.Node{Kind: yamlv3.MappingNode, Content: []*yamlv3.Node{{Kind: yamlv3.ScalarNode, Value: "a"}, {Kind: yamlv3.ScalarNode, Value: "1"}}}
	b := &yamlv3.Node{Kind: yamlv3.MappingNode, Content: []*yamlv3.Node{{Kind: yamlv3.ScalarNode, Value: "b"}, {Kind: yamlv3.ScalarNode, Value: "2"}}}
	bad := errors.New("line 9: did not parse")
	for _, tc := range []struct {
		name  string
		docs  []*yamlv3.Node
		err   error
		helm4 bool
		want  int
		fails bool
	}{
		{"helm 3, two", []*yamlv3.Node{a, b}, nil, false, 1, false},
		{"helm 4, two", []*yamlv3.Node{a, b}, nil, true, 2, false},
		{"helm 3, a bad second", []*yamlv3.Node{a}, bad, false, 1, false},
		{"helm 4, a bad second", []*yamlv3.Node{a}, bad, true, 0, true},
		{"helm 3, a bad first", nil, bad, false, 0, true},
		{"none", nil, nil, true, 0, false},
	} {
		got, err := helmvalues.Counted(tc.docs, tc.err, tc.helm4)
		if (err != nil) != tc.fails || len(got) != tc.want {
			t.Errorf("%s: %d documents, error %v", tc.name, len(got), err)
		}
	}
	if n := helmvalues.Node([]*yamlv3.Node{a, b}, false); len(n.Content) != 2 {
		t.Errorf("Helm 3 merged the second document: %d entries", len(n.Content)/2)
	}
	if n := helmvalues.Node([]*yamlv3.Node{a, b}, true); len(n.Content) != 4 {
		t.Errorf("Helm 4 did not merge both documents: %d entries", len(n.Content)/2)
	}
}
