package engine

import (
	"path"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// source is one template of a rendering: its path from the top chart
// ("app/charts/sub/templates/x.yaml"), its text, and the data it runs
// with, which is shared by every template of its chart.
type source struct {
	name  string
	text  []byte
	scope map[string]any
	base  string // the chart's templates folder, .Template.BasePath
}

// partial reports whether the template only defines named templates for
// others (its base name starts with "_"): it is parsed, never printed.
func (s source) partial() bool { return strings.HasPrefix(path.Base(s.name), "_") }

// sources is every template of c and its subcharts with the data each
// runs with, in the order they are parsed: deeper charts first, so that a
// chart's own definitions replace its subcharts' (a template parsed later
// replaces a same-named one parsed before), and at one depth by path in
// reverse. top is what Helm's ToRenderValues returns: Values, Release,
// Capabilities.
func sources(c *chart.Chart, top chartutil.Values) []source {
	byName := map[string]source{}
	addChart(c, top, byName)
	out := make([]source, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b source) int {
		if da, db := strings.Count(a.name, "/"), strings.Count(b.name, "/"); da != db {
			return db - da
		}
		return strings.Compare(b.name, a.name)
	})
	return out
}

// addChart adds c's templates, and its subcharts', to byName, and returns
// the data c's templates run with, which the parent chart sees as
// .Subcharts.<name>. parent is the data of the chart c is a subchart of,
// or top for the top chart.
func addChart(c *chart.Chart, parent map[string]any, byName map[string]source) map[string]any {
	var values any
	if c.IsRoot() {
		values = parent["Values"]
	} else if v, err := chartutil.Values(parent).Table("Values." + c.Name()); err == nil {
		values = v
	} else {
		values = chartutil.Values{} // nothing under the subchart's name
	}
	subcharts := map[string]any{}
	scope := map[string]any{
		// The same anonymous type as Helm's, so that printing .Chart, or
		// its type, gives what Helm's does.
		"Chart": struct {
			chart.Metadata
			IsRoot bool
		}{*c.Metadata, c.IsRoot()},
		"Files":        chartFiles(c.Files),
		"Release":      parent["Release"],
		"Capabilities": parent["Capabilities"],
		"Values":       values,
		"Subcharts":    subcharts,
	}
	for _, sub := range c.Dependencies() {
		subcharts[sub.Name()] = addChart(sub, scope, byName)
	}
	dir := c.ChartFullPath()
	library := strings.EqualFold(c.Metadata.Type, "library")
	for _, t := range c.Templates {
		if t == nil {
			continue
		}
		s := source{name: path.Join(dir, t.Name), text: t.Data, scope: scope, base: path.Join(dir, "templates")}
		if library && !s.partial() {
			continue // a library chart only defines
		}
		byName[s.name] = s
	}
	return scope
}
