package hydrate

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/held"
)

// TestDocuments: a file is cut before each line that starts with "---",
// and put back together byte for byte.
func TestDocuments(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a: 1\n", []string{"a: 1\n"}},
		{"---\na: 1\n---\nb: 2", []string{"---\na: 1\n", "---\nb: 2"}},
		{"x\n----\ny\n--- # c\n", []string{"x\n", "----\ny\n", "--- # c\n"}},
		{"a: '---'\n  ---\n", []string{"a: '---'\n  ---\n"}},
	} {
		var got []string
		for d := range documents([]byte(tc.in)) {
			got = append(got, string(d))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzDocuments: the documents put together are the file.
func FuzzDocuments(f *testing.F) {
	f.Add([]byte("---\na: 1\n---\nb: 2\n"))
	f.Add([]byte("\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		for d := range documents(data) {
			if len(d) == 0 {
				t.Fatal("an empty document")
			}
			got = append(got, d...)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%q put together as %q", data, got)
		}
	})
}

// TestHeldPaths: files held by folder and name come back with their paths
// and contents as given, sorted as their paths sort (a folder "c/ns-1"
// before "c/ns", as "-" sorts before "/"), and compared with a folder's
// files (a file of the same size and other bytes is not the same).
func TestHeldPaths(t *testing.T) {
	blobs, err := held.NewBlobsOnDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{blobs: blobs}
	defer res.Close()
	in := map[string]string{
		"c/ns/manifest.yaml":   "---\na: 1\n---\nb: 2\n",
		"c/ns/README.md":       "# ns\n",
		"c/ns-1/manifest.yaml": "---\na: 1\n",
		"c/ns-1/README.md":     "# ns-1\n",
		".gitattributes":       "* -diff\n",
		"c.d/x/manifest.yaml":  "",
		"hydrator.metadata":    "{}\n",
	}
	for _, p := range []string{"c/ns/manifest.yaml", "c/ns/README.md", "c/ns-1/manifest.yaml", "c/ns-1/README.md", ".gitattributes", "c.d/x/manifest.yaml", "hydrator.metadata"} {
		if err := res.add(File{Path: p, Data: []byte(in[p])}); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(res.files, res.compare)
	var paths []string
	for f, err := range res.Files() {
		if err != nil || string(f.Data) != in[f.Path] {
			t.Errorf("%s: %q, %v; want %q", f.Path, f.Data, err, in[f.Path])
		}
		paths = append(paths, f.Path)
	}
	if !slices.IsSorted(paths) || len(paths) != len(in) {
		t.Errorf("paths %q: want the %d given, sorted", paths, len(in))
	}
	if len(res.names) != 4 {
		t.Errorf("names held %q: want each of the four names once", res.names)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "c", "ns"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"manifest.yaml": in["c/ns/manifest.yaml"], "README.md": "# NS\n"} {
		if err := os.WriteFile(filepath.Join(dir, "c", "ns", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range res.files {
		p := res.path(f)
		if got, want := res.in(os.DirFS(dir), f), p == "c/ns/manifest.yaml"; got != want {
			t.Errorf("%s held by the folder: %v, want %v", p, got, want)
		}
	}
}

// FuzzCompareJoined: pieces joined compare as the joined strings do.
func FuzzCompareJoined(f *testing.F) {
	f.Add("c/ns", "manifest.yaml", "c/ns-1", "README.md")
	f.Add("", "a", "a", "")
	f.Fuzz(func(t *testing.T, a1, a2, b1, b2 string) {
		a, b := [3]string{a1, "/", a2}, [3]string{b1, b2}
		if got, want := compareJoined(a, b), strings.Compare(a1+"/"+a2, b1+b2); got != want {
			t.Fatalf("%q against %q: %d, want %d", a, b, got, want)
		}
	})
}
