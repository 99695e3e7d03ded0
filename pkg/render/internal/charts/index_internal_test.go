package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/repo"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// helmIndex is what Helm reads from data: nil where it refuses the index.
func helmIndex(t testing.TB, data []byte) *repo.IndexFile {
	t.Helper()
	file := filepath.Join(t.TempDir(), "index.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	idx, err := repo.LoadIndexFile(file)
	if err != nil {
		return nil
	}
	return idx
}

// sameAnswers requires parseIndex's index and Helm's to give the same
// version (or both none) for every chart name and constraint asked.
func sameAnswers(t *testing.T, label string, data []byte, constraints []string) {
	t.Helper()
	want := helmIndex(t, data)
	got, err := parseIndex(data)
	if (err == nil) != (want != nil) {
		t.Fatalf("%s: parseIndex: %v; Helm read it: %t", label, err, want != nil)
	}
	if want == nil {
		return
	}
	names := []string{"absent"}
	for name := range want.Entries {
		names = append(names, name)
	}
	for name := range got.Entries {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		asked := slices.Clone(constraints)
		for _, v := range want.Entries[name] {
			asked = append(asked, v.Version, "<="+v.Version, "~"+v.Version)
		}
		for _, c := range asked {
			hv, herr := want.Get(name, c)
			gv, gerr := got.get(name, c)
			switch {
			case (herr == nil) != (gerr == nil):
				t.Errorf("%s: %s %q: Helm: %v, ours: %v", label, name, c, herr, gerr)
			case herr == nil && (hv.Version != gv.Version || hv.Digest != gv.Digest || !slices.Equal(hv.URLs, gv.URLs)):
				t.Errorf("%s: %s %q: Helm picks %s %s, ours %s %s", label, name, c, hv.Version, hv.URLs, gv.Version, gv.URLs)
			}
		}
	}
}

// TestIndexLikeHelm holds the index reader to Helm's on Helm's own index
// fixtures (a ChartMuseum index, unordered versions, the JSON form) and on
// the cases Helm drops or refuses: empty and invalid entries, pre-releases,
// versions written two ways, no apiVersion.
func TestIndexLikeHelm(t *testing.T) {
	constraints := []string{"", "*", ">=0.1.0", "^1", "~0.2", ">1.0.0-0", "1.x", "latest", ">= 1.0, < 2.0", "0.0.0-alpha", "=1.2.3"}
	dir := filepath.Join(testtool.ModuleDir(t, "helm.sh/helm/v3"), "pkg", "repo", "testdata")
	for _, name := range []string{"chartmuseum-index.yaml", "local-index.yaml", "local-index-unordered.yaml", "local-index-annotations.yaml", "local-index.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, name, data, constraints)
	}
	entry := func(name, version string, extra ...string) string {
		return fmt.Sprintf("  - name: %q\n    version: %q\n    urls: [%s-%s.tgz]\n    digest: d-%s\n%s", name, version, name, version, version, strings.Join(extra, ""))
	}
	cases := map[string]string{
		"versions and pre-releases": "apiVersion: v1\nentries:\n  app:\n" + entry("app", "1.0.0") + entry("app", "2.0.0-rc.1") + entry("app", "1.10.0") +
			entry("app", "1.9.0"),
		"only pre-releases": "apiVersion: v1\nentries:\n  app:\n" + entry("app", "1.0.0-beta.1") + entry("app", "1.0.0-alpha"),
		"written two ways":  "apiVersion: v1\nentries:\n  app:\n" + entry("app", "v1.2.3") + entry("app", "1.2.3") + entry("app", "1.2"),
		"invalid entries": "apiVersion: v1\nentries:\n  app:\n  - null\n  - urls: [x.tgz]\n" + entry("app", "not-semver") + entry("app", "0.1.0") +
			entry("../app", "0.2.0") + entry("app", "0.3.0", "    type: plugin\n"),
		"repeated dependency": "apiVersion: v1\nentries:\n  app:\n" + entry("app", "1.0.0", "    dependencies:\n    - name: a\n    - name: a\n"),
		"empty chart":         "apiVersion: v1\nentries:\n  app: []\n  other:\n" + entry("other", "1.0.0"),
		"no apiVersion":       "entries:\n  app:\n" + entry("app", "1.0.0"),
		"not YAML":            "apiVersion: [\n",
		"nested past depth":   "apiVersion: v1\nentries:\n  app: " + strings.Repeat("[", 100_000),
	}
	for name, data := range cases {
		sameAnswers(t, name, []byte(data), constraints)
	}
}

// TestResolveURLLikeHelm: where an index's archive URL points, as Helm
// resolves it.
func TestResolveURLLikeHelm(t *testing.T) {
	bases := []string{"https://charts.example.com", "https://charts.example.com/", "https://charts.example.com/sub/path",
		"https://charts.example.com/sub/path/?token=x", "http://127.0.0.1:8080/a%2Fb/", "oci://registry.example.com/charts"}
	refs := []string{"app-1.0.0.tgz", "charts/app-1.0.0.tgz", "/root/app-1.0.0.tgz", "../app-1.0.0.tgz", "https://cdn.example.com/app-1.0.0.tgz",
		"app-1.0.0.tgz?sig=abc", "%zz", "//other.example.com/app.tgz"}
	for _, base := range bases {
		for _, ref := range refs {
			want, werr := repo.ResolveReferenceURL(base, ref)
			got, gerr := resolveURL(base, ref)
			if (werr == nil) != (gerr == nil) || got != want {
				t.Errorf("resolveURL(%q, %q) = %q, %v; Helm: %q, %v", base, ref, got, gerr, want, werr)
			}
		}
	}
}

// FuzzParseIndex: any bytes either fail as not an index or give an index
// whose every version resolves; where Helm reads the same bytes, the
// newest version of each chart is Helm's.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nentries:\n  app:\n  - name: app\n    version: 1.0.0\n    urls: [a.tgz]\n"))
	f.Add([]byte(`{"apiVersion":"v1","entries":{"app":[null,{"name":"app","version":"v2"}]}}`))
	f.Add([]byte("apiVersion: v1\nentries:\n  a:\n  - {name: a, version: 1.0.0-rc.1}\n  - {name: a, version: 0.9.0}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data)
		if err != nil {
			return
		}
		want := helmIndex(t, data) // nil too where Helm's strict YAML reading refuses an unknown field
		for name := range idx.Entries {
			for _, v := range idx.Entries[name] {
				if _, err := idx.get(name, v.Version); err != nil {
					t.Fatalf("%s %s is listed but not found: %v", name, v.Version, err)
				}
			}
			if want == nil {
				continue
			}
			hv, herr := want.Get(name, "")
			gv, gerr := idx.get(name, "")
			if (herr == nil) != (gerr == nil) || (herr == nil && hv.Version != gv.Version) {
				t.Fatalf("%s: Helm %v %v, ours %v %v", name, hv, herr, gv, gerr)
			}
		}
	})
}
