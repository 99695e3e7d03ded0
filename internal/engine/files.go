package engine

import (
	"encoding/base64"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/gobwas/glob"
	"helm.sh/helm/v3/pkg/chart"
)

// files is a chart's .Files: every file of the chart outside templates/,
// by its path in the chart. It is a map so that `index .Files "a.txt"`
// and `range $path, $data := .Files.Glob "x/*"` work as they do in Helm
// (the type's name, engine.files, is also the one Helm's typeOf prints).
type files map[string][]byte

func chartFiles(list []*chart.File) files {
	f := make(files, len(list))
	for _, file := range list {
		f[file.Name] = file.Data
	}
	return f
}

// GetBytes is a file's content; a file the chart does not have is empty.
func (f files) GetBytes(name string) []byte {
	data, ok := f[name]
	if !ok {
		data = []byte{}
	}
	return data
}

// Get is a file's content as a string; a file the chart does not have is "".
func (f files) Get(name string) string { return string(f.GetBytes(name)) }

// Glob is the files whose path matches pattern, where * stops at / and **
// does not. A pattern that does not compile matches every file, as Helm's
// does.
func (f files) Glob(pattern string) files {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g = glob.MustCompile("**", '/')
	}
	out := files{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}

// Lines is a file's lines, split at "\n", the file's last newline ending
// its last line rather than starting an empty one.
func (f files) Lines(name string) []string {
	data := f[name]
	if len(data) == 0 {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// AsConfig is the files as the YAML of a ConfigMap's data: each file's
// base name to its text.
func (f files) AsConfig() string {
	return f.byBaseName(func(data []byte) string { return string(data) })
}

// AsSecrets is the files as the YAML of a Secret's data: each file's base
// name to its content in base64.
func (f files) AsSecrets() string {
	return f.byBaseName(base64.StdEncoding.EncodeToString)
}

// byBaseName is the YAML map from each file's base name to enc of its
// content; of two files with one base name, the path that sorts last wins
// (Helm leaves that to map order).
func (f files) byBaseName(enc func([]byte) string) string {
	if f == nil {
		return ""
	}
	m := make(map[string]string, len(f))
	for _, name := range slices.Sorted(maps.Keys(f)) {
		m[path.Base(name)] = enc(f[name])
	}
	return toYAML(m)
}
