package render

import (
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/internal/engine"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render/internal/charts"
)

// Unstable is what makes a target's rendering change with no change to
// the repository: a template function that asks the cluster, the clock or
// chance, called by this rendering, or a remote dependency resolved from
// a version range (each run takes the newest version the repository
// publishes then). A hydrated manifest holding it changes without a
// commit; Argo CD's own rendering differs from it and from the last.
type Unstable struct {
	// Func is the function ("randAlphaNum", "lookup", "now", "genCA";
	// "date" when it is not given a time, so uses the clock), "" for a
	// dependency.
	Func string
	// Template is Helm's path of the template that called it
	// ("app/templates/secret.yaml"; the partial that defines a named
	// template), Source its repository file (or archive member), Line
	// the line there where it first mentions Func (0 when not known).
	// ViaTpl: the call is in text given to tpl, at Line's tpl call.
	Template string
	manifest.Source
	Line   int
	ViaTpl bool
	// Dependency and Version name the dependency resolved from a range;
	// Source is then the Chart.yaml that declares it.
	Dependency, Version string
}

// unstable are the unstable calls of a rendering of entry's chart, with
// their repository files, and the chart's remote dependencies resolved
// from a version range, sorted.
func unstable(calls []engine.Call, entry *charts.Loaded) []Unstable {
	var out []Unstable
	for _, c := range calls {
		u := Unstable{Func: c.Func, Template: c.Template, Line: c.Line, ViaTpl: c.ViaTpl}
		u.File, u.Member = templateFile(c.Template, entry.Origins)
		out = append(out, u)
	}
	var walk func(c *chart.Chart)
	walk = func(c *chart.Chart) {
		dir := entry.Origins[c.ChartFullPath()]
		for _, dep := range c.Metadata.Dependencies {
			origin, ok := entry.Origins[c.ChartFullPath()+"/charts/"+dep.Name]
			remote := strings.HasPrefix(dep.Repository, "https://") || strings.HasPrefix(dep.Repository, "http://") || strings.HasPrefix(dep.Repository, "oci://")
			fetched := ok && !strings.HasPrefix(origin, dir+"/") // not vendored under charts/
			if !remote || !fetched || charts.IsExactVersion(charts.LockedVersion(dep, c.Lock)) || dir == "" || strings.HasSuffix(dir, ".tgz") {
				continue
			}
			out = append(out, Unstable{Source: manifest.Source{File: dir + "/Chart.yaml"}, Dependency: dep.Name, Version: dep.Version})
		}
		for _, sub := range c.Dependencies() {
			walk(sub)
		}
	}
	walk(entry.Chart)
	slices.SortFunc(out, func(a, b Unstable) int {
		return strings.Compare(a.File+"\x00"+a.Dependency+"\x00"+a.Func, b.File+"\x00"+b.Dependency+"\x00"+b.Func)
	})
	return out
}
