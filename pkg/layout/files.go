package layout

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Files is the repository's file index: the list of its files, and each
// file's content, read at most once per run and parsed (as YAML documents,
// with positions) only when a stage asks, once. Layout, render and lint
// share it, so a values file is read once and its facts (is it
// SOPS-encrypted, is it a mapping) are learnt once. It is safe for
// concurrent use.
type Files struct {
	fsys     fs.FS
	limit    int64
	entries  sync.Map // path -> *File
	listOnce sync.Once
	paths    []string
}

// File is one repository file as Files holds it.
type File struct {
	// Path is the file's repository path.
	Path string

	files     *Files
	readOnce  sync.Once
	data      []byte
	readErr   error
	parseOnce sync.Once
	docs      []*yaml.Node
	parseErr  error
	sops      *sopsfile.Metadata
}

// NewFiles returns an index of the files of fsys, which reads files of at
// most fsutil.DefaultMaxFileSize bytes. Load makes one for each Repo
// (Repo.Files, reading values files as large as Options.MaxValuesSize
// too); a Repo built another way can be given one.
func NewFiles(fsys fs.FS) *Files { return &Files{fsys: fsys, limit: fsutil.DefaultMaxFileSize} }

// Get returns the file at repository path p (following links inside the
// repository). It reads nothing until asked.
func (f *Files) Get(p string) *File {
	if v, ok := f.entries.Load(p); ok {
		return v.(*File)
	}
	v, _ := f.entries.LoadOrStore(p, &File{Path: p, files: f})
	return v.(*File)
}

// Paths lists every file of the repository once, in lexical order, leaving
// out hidden folders (.git, .github, ...) and node_modules. Folders that
// cannot be read are left to layout's diagnostics.
func (f *Files) Paths() []string {
	f.listOnce.Do(func() {
		fs.WalkDir(f.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != "." && fsutil.IgnoredDir(d.Name()) {
					return fs.SkipDir
				}
				return nil
			}
			f.paths = append(f.paths, p)
			return nil
		})
		sort.Strings(f.paths)
	})
	return f.paths
}

// Data returns the file's content, read once. A file that is not a
// regular file (fsutil.ErrNotRegular) or is over the index's limit
// (fsutil.ErrTooLarge) is not read.
func (x *File) Data() ([]byte, error) {
	x.readOnce.Do(func() {
		real, err := fsutil.Resolve(x.files.fsys, x.Path)
		if err == nil {
			x.data, err = fsutil.ReadFile(x.files.fsys, real, x.files.limit)
		}
		x.readErr = err
	})
	return x.data, x.readErr
}

// Docs returns the top-level node of each YAML document of the file (a
// .json file is read as the YAML it is), parsed once. On a syntax error it
// returns the documents before it and the error.
func (x *File) Docs() ([]*yaml.Node, error) {
	x.parseOnce.Do(func() {
		data, err := x.Data()
		if err != nil {
			x.parseErr = err
			return
		}
		if path.Ext(x.Path) == ".json" {
			// JSON is YAML, but for tabs: outside strings (where JSON
			// escapes them) a tab is only white space, so this keeps the
			// meaning and every line number.
			data = bytes.ReplaceAll(data, []byte("\t"), []byte(" "))
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err != nil {
				if !errors.Is(err, io.EOF) {
					x.parseErr = err
				}
				break
			}
			x.docs = append(x.docs, yamlpos.Root(&n))
		}
		if len(x.docs) > 0 {
			x.sops, _ = sopsfile.InspectNode(x.docs[0])
		}
	})
	return x.docs, x.parseErr
}

// ValuesNode is the values a Helm reads from the file, as one node with
// each key's line: its first document under Helm 3, all of them merged
// under Helm 4 (helmvalues.Node), from the file's one parse (Docs).
func (x *File) ValuesNode(helm4 bool) (*yaml.Node, error) {
	docs, err := x.Docs()
	if err != nil {
		return nil, err
	}
	return helmvalues.Node(docs, helm4), nil
}

// Sops returns the file's SOPS metadata, nil when it is not a
// SOPS-encrypted YAML document.
func (x *File) Sops() *sopsfile.Metadata {
	x.Docs()
	return x.sops
}

// Encrypted reports whether the file is a SOPS-encrypted YAML document.
func (x *File) Encrypted() bool { return x.Sops() != nil }
