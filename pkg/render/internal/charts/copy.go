package charts

import (
	"slices"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/pkg/manifest"
)

// Copy deep-copies the parts of a chart that rendering mutates
// (metadata and its dependency list, values, the dependency tree), sharing
// the immutable file contents.
func Copy(c *chart.Chart) *chart.Chart {
	out := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = make([]*chart.Dependency, len(c.Metadata.Dependencies))
		for i, d := range c.Metadata.Dependencies {
			dd := *d
			dd.Tags = slices.Clone(d.Tags)
			dd.ImportValues = slices.Clone(d.ImportValues)
			md.Dependencies[i] = &dd
		}
		out.Metadata = &md
	}
	out.Values = manifest.CopyContent(c.Values)
	out.Templates = slices.Clone(c.Templates)
	out.Files = slices.Clone(c.Files)
	out.Schema = slices.Clone(c.Schema)
	deps := make([]*chart.Chart, 0, len(c.Dependencies()))
	for _, d := range c.Dependencies() {
		deps = append(deps, Copy(d))
	}
	out.SetDependencies(deps...)
	return &out
}
