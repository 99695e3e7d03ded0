package manifest_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/manifest"
)

func TestRead(t *testing.T) {
	stream := "---\n# Source: app/templates/a.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: ns\n" +
		"---\n# only a comment\n---\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"
	objs, err := manifest.Read([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	type head struct {
		APIVersion, Kind, Name, Namespace, Template string
		Line                                        int
		Key                                         string
	}
	var got []head
	for _, o := range objs {
		got = append(got, head{o.APIVersion, o.Kind, o.Name, o.Namespace, o.Template, o.Line, o.Key().String()})
	}
	want := []head{
		{"apps/v1", "Deployment", "a", "ns", "app/templates/a.yaml", 3, "apps/Deployment ns/a"},
		{"v1", "ConfigMap", "b", "", "", 13, "ConfigMap b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// Writing them back gives Helm's form of the stream.
	if got, want := string(manifest.Append(nil, objs...)), "---\n# Source: app/templates/a.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: ns\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"; got != want {
		t.Errorf("Append =\n%s\nwant\n%s", got, want)
	}

	_, err = manifest.Read([]byte("---\n# Source: app/templates/bad.yaml\na: [b\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "app/templates/bad.yaml: not valid YAML") {
		t.Errorf("invalid document: err = %v", err)
	}
}

func TestKeyIgnoresVersion(t *testing.T) {
	a := manifest.Object{APIVersion: "networking.k8s.io/v1beta1", Kind: "Ingress", Namespace: "shop", Name: "web"}
	b := manifest.Object{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Namespace: "shop", Name: "web"}
	if a.Key() != b.Key() || a.Key().Compare(b.Key()) != 0 {
		t.Errorf("keys differ across versions: %v, %v", a.Key(), b.Key())
	}
	if a.Group() != "networking.k8s.io" || a.Version() != "v1beta1" {
		t.Errorf("group, version = %q, %q", a.Group(), a.Version())
	}
	core := manifest.Object{APIVersion: "v1", Kind: "Secret", Name: "s"}
	if core.Group() != "" || core.Version() != "v1" || core.Key().String() != "Secret s" {
		t.Errorf("core object: %q %q %q", core.Group(), core.Version(), core.Key())
	}
}

func TestNamespaceIn(t *testing.T) {
	own := manifest.Object{Kind: "ConfigMap", Namespace: "other"}
	left := manifest.Object{Kind: "ConfigMap"}
	if own.NamespaceIn("shop") != "other" || left.NamespaceIn("shop") != "shop" || own.NamespaceIn("") != "" {
		t.Errorf("NamespaceIn: %q %q %q", own.NamespaceIn("shop"), left.NamespaceIn("shop"), own.NamespaceIn(""))
	}
}

func TestSource(t *testing.T) {
	for _, s := range []manifest.Source{{File: "namespaces/app/templates/a.yaml"}, {File: "namespaces/app/charts/lib-1.0.0.tgz", Member: "lib/templates/b.yaml"}} {
		if got := manifest.ParseSource(s.String()); got != s {
			t.Errorf("ParseSource(%q) = %+v, want %+v", s.String(), got, s)
		}
	}
	if got := (manifest.Source{File: "a.tgz", Member: "x/y.yaml"}).String(); got != "a.tgz!x/y.yaml" {
		t.Errorf("String = %q", got)
	}
}

const clusterCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]ss.acme.io}
spec:
  group: acme.io
  scope: %[2]s
  names: {kind: %[1]s, plural: %[1]ss, singular: %[1]s, shortNames: [%[1]sy]}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object}}
`

func crdYAML(kind, scope string) string {
	return strings.NewReplacer("%[1]s", strings.ToLower(kind), "%[2]s", scope).Replace(clusterCRD)
}

// tgz packages files as a chart archive.
func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestReadChartCRDs finds CRDs in a chart's crds/ folder, in an unpacked
// subchart's and in a packaged subchart's (itself holding a packaged
// subchart), and nowhere else.
func TestReadChartCRDs(t *testing.T) {
	inner := tgz(t, map[string]string{"inner/Chart.yaml": "name: inner", "inner/crds/c.yaml": crdYAML("Cog", "Cluster")})
	fsys := fstest.MapFS{
		"ns/app/Chart.yaml":                     {Data: []byte("name: app")},
		"ns/app/crds/a.yaml":                    {Data: []byte(crdYAML("Gadget", "Namespaced") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
		"ns/app/templates/crd.yaml":             {Data: []byte(crdYAML("Templated", "Cluster"))},
		"ns/app/charts/sub/crds/b.yaml":         {Data: []byte(crdYAML("Widget", "Cluster"))},
		"ns/app/charts/lib-1.0.0.tgz":           {Data: tgz(t, map[string]string{"lib/Chart.yaml": "name: lib", "lib/crds/d.yaml": crdYAML("Dial", "Cluster"), "lib/templates/e.yaml": crdYAML("Hidden", "Cluster"), "lib/charts/inner-1.0.0.tgz": string(inner)})},
		"ns/app/notcharts/crds/ignored.yaml":    {Data: []byte(crdYAML("Ignored", "Cluster"))},
		"ns/app/charts/sub/templates/more.yaml": {Data: []byte(crdYAML("Alsohidden", "Cluster"))},
	}
	crds, err := manifest.ReadChartCRDs(fsys, "ns/app")
	if err != nil {
		t.Fatal(err)
	}
	inv := manifest.NewCRDs(crds...)
	var got []string
	for _, c := range inv.All() {
		got = append(got, c.Name+" "+c.Scope+" "+c.Source.String())
	}
	want := []string{
		"cogs.acme.io Cluster ns/app/charts/lib-1.0.0.tgz!lib/charts/inner-1.0.0.tgz!inner/crds/c.yaml",
		"dials.acme.io Cluster ns/app/charts/lib-1.0.0.tgz!lib/crds/d.yaml",
		"gadgets.acme.io Namespaced ns/app/crds/a.yaml",
		"widgets.acme.io Cluster ns/app/charts/sub/crds/b.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CRDs (-want +got):\n%s", diff)
	}
	if c, ok := inv.Lookup("acme.io", "widget"); !ok || c.Scope != "Cluster" || c.Line != 7 || c.ShortNameLines["widgety"] != 7 {
		t.Errorf("Lookup(acme.io, widget) = %+v, %v", c, ok)
	}
	if _, ok := inv.Lookup("acme.io", "Ignored"); ok {
		t.Error("a crds/ folder outside a chart's own was read")
	}
}

// TestReadChartCRDsFailsClosed: a CRD file that cannot be parsed is an
// error naming the file and line, never a CRD silently left out.
func TestReadChartCRDsFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"invalid YAML", fstest.MapFS{"app/crds/a.yaml": {Data: []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: [x\n")}}, "app/crds/a.yaml:4: not valid YAML"},
		{"corrupt archive", fstest.MapFS{"app/charts/lib-1.0.0.tgz": {Data: []byte("not gzip")}}, "app/charts/lib-1.0.0.tgz: not a gzip-compressed chart"},
		{"invalid YAML in an archive", fstest.MapFS{"app/charts/lib-1.0.0.tgz": {Data: tgz(t, map[string]string{"lib/crds/a.yaml": "a: [b\n"})}}, "app/charts/lib-1.0.0.tgz!lib/crds/a.yaml:2: not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := manifest.ReadChartCRDs(tt.fsys, "app")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to start with %q", err, tt.want)
			}
		})
	}
}

func TestCRDsOf(t *testing.T) {
	objs, err := manifest.Read([]byte("---\n# Source: app/templates/crd.yaml\n" + crdYAML("Gadget", "Cluster") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range objs {
		objs[i].Source = manifest.Source{File: "namespaces/app/templates/crd.yaml"}
	}
	crds := manifest.CRDsOf(objs)
	if len(crds) != 1 || crds[0].Name != "gadgets.acme.io" || crds[0].Scope != "Cluster" || crds[0].Source.File != "namespaces/app/templates/crd.yaml" || len(crds[0].Served()) != 1 {
		t.Errorf("CRDsOf = %+v", crds)
	}
}

// FuzzRead: the stream reader never panics, and whatever it returns has
// a line inside the stream.
func FuzzRead(f *testing.F) {
	f.Add([]byte("---\n# Source: a.yaml\napiVersion: v1\nkind: ConfigMap\n---\n"))
	f.Add([]byte("a: [b\n"))
	f.Add([]byte("---\r\n---\n# Source: \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Read(data)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, o := range objs {
			if o.Line < 1 || o.Line > lines {
				t.Errorf("line %d outside a stream of %d lines", o.Line, lines)
			}
		}
	})
}
