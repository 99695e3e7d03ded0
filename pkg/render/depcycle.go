package render

import (
	"path"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
)

// depGraph remembers which charts were checked for file:// dependency
// cycles.
type depGraph struct {
	mu      sync.Mutex
	checked map[string]error
	// chartYAML holds the Chart.yaml files read, for the loader, so that
	// each is read once.
	chartYAML map[string][]byte
}

// takeChartYAML returns (and forgets) the Chart.yaml of dir read by the cycle
// check, nil when it was not read.
func (g *depGraph) takeChartYAML(dir string) []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	data := g.chartYAML[dir]
	delete(g.chartYAML, dir)
	return data
}

// dependencyCycle reports a cycle among the file:// dependencies reachable
// from the chart in dir, before any chart is loaded. The loader finds a
// cycle in a single target too, but targets load charts concurrently, each
// chart once: two targets entering a cycle from both ends would wait on
// each other for ever. The check reads Chart.yaml files only.
func (r *Renderer) dependencyCycle(dir string) error {
	g := &r.graph
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.checked == nil {
		g.checked, g.chartYAML = map[string]error{}, map[string][]byte{}
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
		var meta struct {
			Dependencies []struct {
				Name       string `json:"name"`
				Repository string `json:"repository"`
			} `json:"dependencies"`
		}
		real, err := fsutil.Resolve(r.fsys, path.Join(dir, "Chart.yaml"))
		if err == nil {
			var data []byte
			if data, err = fsutil.ReadFile(r.fsys, real, fsutil.DefaultMaxFileSize); err == nil {
				g.chartYAML[dir] = data
				err = yaml.Unmarshal(data, &meta)
			}
		}
		if err != nil {
			return nil // the loader reports a missing or broken chart
		}
		stack = append(stack, dir)
		for _, d := range meta.Dependencies {
			sub, ok, err := layout.FileDependency(dir, d.Repository)
			if !ok || err != nil {
				continue // the loader refuses a path that leaves the repository
			}
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
