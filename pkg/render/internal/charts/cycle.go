package charts

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/repotool/repotool/pkg/layout"
)

// depGraph remembers which charts were checked for file:// dependency
// cycles.
type depGraph struct {
	mu      sync.Mutex
	checked map[string]error
}

// dependencyCycle reports a cycle among the file:// dependencies reachable
// from the chart in dir, before any chart is loaded. The loader finds a
// cycle in a single target too, but targets load charts concurrently, each
// chart once: two targets entering a cycle from both ends would wait on
// each other for ever. The check reads Chart.yaml files only, through the
// file index, with the rule layout's inputs follow
// (layout.ChartFileDependencies).
func (s *Supply) dependencyCycle(dir string) error {
	g := &s.graph
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.checked == nil {
		g.checked = map[string]error{}
	}
	var visit func(dir string, stack []string) error
	visit = func(dir string, stack []string) error {
		if i := slices.Index(stack, dir); i >= 0 {
			// The same cycle, whichever target meets it first: start it
			// at its smallest folder.
			cycle := slices.Clone(stack[i:])
			first := slices.Index(cycle, slices.Min(cycle))
			cycle = append(cycle[first:], cycle[:first]...)
			return &DependencyError{Chart: cycle[len(cycle)-1], Dependency: path.Base(cycle[0]), Repository: "file://",
				Reason: "the file:// dependencies form a cycle: " + strings.Join(append(cycle, cycle[0]), " -> "),
				Hint:   "a chart cannot depend on itself: remove one of the dependencies"}
		}
		if err, ok := g.checked[dir]; ok {
			return err
		}
		stack = append(stack, dir)
		// A Chart.yaml that cannot be read adds nothing: the loader
		// reports it; nor does a path that leaves the repository, which
		// the loader refuses.
		for _, sub := range layout.ChartFileDependencies(s.files, dir) {
			if err := visit(sub, stack); err != nil {
				g.checked[dir] = err
				return err
			}
		}
		g.checked[dir] = nil
		return nil
	}
	return visit(dir, nil)
}
