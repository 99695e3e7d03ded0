package charts

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// FuzzReadChartFiles builds chart folders with link structures from the
// fuzzer's bytes (links to parents, to siblings, to each other, dangling,
// escaping) and reads them as a chart: the reader must always end, never
// panic, and never return a file twice (links leaving the file system cannot
// be followed at all: fsutil.Resolve refuses them).
func FuzzReadChartFiles(f *testing.F) {
	f.Add([]byte("templates/loop\x00..\x00templates/cm.yaml\x00"))
	f.Add([]byte("a\x00b\x00b\x00a\x00"))
	f.Add([]byte("templates/x\x00../../../etc\x00lib\x00../../shared\x00"))
	f.Add([]byte("charts/sub/templates/up\x00../../..\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"chart/Chart.yaml":          {Data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\n")},
			"chart/templates/base.yaml": {Data: []byte("kind: ConfigMap\n")},
			"shared/_helpers.tpl":       {Data: []byte("{{ define \"x\" }}{{ end }}\n")},
		}
		testtool.LinkTree(data, func(name, target string) {
			if target != "" {
				fsys["chart/"+name] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
			} else {
				fsys["chart/"+name] = &fstest.MapFile{Data: []byte("kind: ConfigMap\n")}
			}
		})
		files, err := readChartFiles(fsys, "chart", nil)
		if err != nil {
			return // any error is fine; ending is the point
		}
		seen := map[string]bool{}
		for _, f := range files {
			if seen[f.Name] {
				t.Fatalf("%s read twice", f.Name)
			}
			seen[f.Name] = true
		}
	})
}
