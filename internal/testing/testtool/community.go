package testtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CommunityChart is a real chart from the Go module internal/corpus pins
// for its project (see internal/corpus/SOURCES.md).
type CommunityChart struct {
	// Name is the chart's name, and the namespace tests deploy it as.
	Name string
	// Module is the Go module holding it; Dir its folder in the module.
	Module, Dir string
}

// CommunityCharts are the real charts tests render.
var CommunityCharts = []CommunityChart{
	{"cert-manager", "github.com/cert-manager/cert-manager", "deploy/charts/cert-manager"},
	{"external-secrets", "github.com/external-secrets/external-secrets", "deploy/charts/external-secrets"},
	{"ingress-nginx", "k8s.io/ingress-nginx", "charts/ingress-nginx"},
}

// Path is the chart's folder in the module cache, as published.
func (c CommunityChart) Path(t testing.TB) string {
	t.Helper()
	return filepath.Join(CorpusDir(t, c.Module), filepath.FromSlash(c.Dir))
}

// Files returns the chart's files by slash path, with the dependencies
// cut from its Chart.yaml: external-secrets lists bitwarden-sdk-server,
// disabled by default and not vendored, so without it the chart renders
// the same and nothing is downloaded. Its Chart.lock goes with them: a
// lock that names dependencies Chart.yaml no longer lists is out of sync,
// and `helm dependency build` and repotool refuse it.
func (c CommunityChart) Files(t testing.TB) map[string]string {
	t.Helper()
	src := c.Path(t)
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(files["Chart.yaml"], "\ndependencies:\n"); i >= 0 {
		files["Chart.yaml"] = files["Chart.yaml"][:i+1]
		delete(files, "Chart.lock")
	}
	return files
}

// Community returns the community chart named name.
func Community(t testing.TB, name string) CommunityChart {
	t.Helper()
	for _, c := range CommunityCharts {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no community chart %q", name)
	return CommunityChart{}
}
