package values

import (
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// Candidate is a key a values file sets that the charts' defaults do not
// declare: whether it does anything only rendering can tell.
type Candidate struct {
	Path []string
	// Line is the line of its key in the file.
	Line int
	// Nearest is the declared key beside it whose name is closest, when
	// one is close enough to be a typo of it ("" otherwise).
	Nearest string
}

// Undeclared lists the keys layer l sets that defaults (Effective.Defaults)
// do not declare, in file order: the top-most key missing from the map the
// charts' defaults have at its parent. Keys under a value the defaults
// leave free-form (an empty map, or any other value than a map: the chart
// takes it whole) are declared by it.
func Undeclared(defaults Trace, l Layer) []Candidate {
	if l.Doc == nil || l.Doc.Kind != yaml.MappingNode {
		return nil
	}
	var out []Candidate
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if l.Secret && sopsfile.IsMetadata(len(path), k.Value) {
				continue
			}
			p := append(path[:len(path):len(path)], k.Value)
			switch {
			case defaults[Key(p)] != nil:
				// A value the chart declares (a leaf, or a map it leaves
				// empty): what is set under it is the chart's to read.
			case len(childKeys(defaults, p)) > 0:
				if v.Kind == yaml.MappingNode {
					walk(v, p)
				}
			default:
				out = append(out, Candidate{Path: p, Line: k.Line, Nearest: nearest(k.Value, childKeys(defaults, path))})
			}
		}
	}
	walk(l.Doc, nil)
	return out
}

// childKeys are the keys the defaults have directly under path.
func childKeys(t Trace, path []string) []string {
	prefix := Key(path)
	if len(path) > 0 {
		prefix += Sep
	}
	keys := map[string]bool{}
	for k := range t {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, Sep)
			keys[name] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// nearest is the key among keys closest to name by edit distance, when
// it is at most a third of name's length (at least 2) away; ties go to
// the first in order.
func nearest(name string, keys []string) string {
	best, bestD := "", max(2, len(name)/3)+1
	for _, k := range keys {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD && d < len(name) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
