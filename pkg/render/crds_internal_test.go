package render

import (
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// TestMayRenderCRDs: a chart may render a CRD when a template names the
// kind, when a template reads the chart's files and one names it, or when
// its crds/ folder holds one, its own or a subchart's; a README or a test
// snapshot that names the kind, in a chart whose templates read no files,
// is not a sign.
func TestMayRenderCRDs(t *testing.T) {
	file := func(name, data string) *chart.File { return &chart.File{Name: name, Data: []byte(data)} }
	crd := "kind: CustomResourceDefinition\n"
	plain := func(files ...*chart.File) *chart.Chart {
		return &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*chart.File{file("templates/cm.yaml", "kind: ConfigMap\n")}, Files: files}
	}
	withSub := plain()
	withSub.AddDependency(plain(file("crds/a.yaml", crd)))
	readsFiles := plain(file("files/crd.yaml", crd))
	readsFiles.Templates = append(readsFiles.Templates, file("templates/extra.yaml", `{{ .Files.Get "files/crd.yaml" }}`))
	for _, tc := range []struct {
		name string
		c    *chart.Chart
		want bool
	}{
		{"a template names the kind", &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*chart.File{file("templates/crd.yaml", crd)}}, true},
		{"a crds/ file", plain(file("crds/a.yaml", crd)), true},
		{"a file the templates read", readsFiles, true},
		{"a subchart's crds/ file", withSub, true},
		{"only a README and a test snapshot", plain(file("README.md", "installs a "+crd), file("tests/__snapshot__/x.snap", crd)), false},
		{"the chart's values.yaml", &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Raw: []*chart.File{file("values.yaml", "extraObjects:\n  - "+crd)}}, true},
		{"nothing", plain(), false},
	} {
		if got := mayRenderCRDs(tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
