package layout

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"io/fs"
	"iter"
	"path"
	"sort"
	"sync"
	"sync/atomic"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/internal/pathset"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Files is the repository's file index: the list of its files, and each
// file's content, read when a stage asks and parsed (as YAML documents,
// with positions) only when a stage asks. Layout, render and lint share
// it, so a values file's facts (is it SOPS-encrypted, is it a mapping) are
// learnt once. What it keeps of the files is bounded (MaxHeldData,
// MaxHeldParsed), least recently used out first: a repository of any size
// costs a run the files in use, not every file it has read. A file let go
// is read (or parsed) again when asked. It is safe for concurrent use.
type Files struct {
	fsys     fs.FS
	limit    int64
	mu       sync.RWMutex
	entries  map[string]*File // by path
	listOnce sync.Once
	listing  pathset.Set // Paths
	isListed atomic.Bool // listing is made
	// forgot are the files whose entries Forget let go, each read and
	// parsed whole, and found neither SOPS-encrypted nor wrong; sopsless
	// the others it let go known to hold no SOPS metadata: their parse
	// failed before any (templates, most), or their bytes cannot spell
	// it (File.Sops). Sops need not read them again (Err and Docs do).
	forgot, sopsless pathset.Marks
	// sealed are the SOPS metadata of the files Forget let go that hold
	// it, each read and parsed whole and found right otherwise.
	sealed map[string]*sopsfile.Metadata
	data   held // the files' bytes, by their size
	parsed held // the files' documents, by the size of their bytes
	sops   metadataSet
}

// MaxHeldData bounds the bytes of the files a Files keeps read, and
// MaxHeldParsed the bytes of those it keeps parsed (a parsed YAML file
// takes some ten times its size).
const (
	MaxHeldData   = 1 << 20
	MaxHeldParsed = 256 << 10
)

// File is one repository file as Files holds it.
type File struct {
	// Path is the file's repository path.
	Path string

	files *Files
	mu    sync.Mutex // one read, one parse at a time
	data  atomic.Pointer[[]byte]
	docs  atomic.Pointer[[]*yaml.Node]
	// What the first read and parse learnt, kept when the content goes:
	// nil when the file was read and parsed and is not SOPS-encrypted,
	// what most files learn (a File is one of every file a run reads).
	read, parsed bool
	// noSops: the file holds no SOPS metadata, known without a clean
	// parse (Files.sopsless).
	noSops atomic.Bool
	learnt atomic.Pointer[learnt]
}

// learnt is what a File's first read and parse learnt beyond its content.
type learnt struct {
	readErr, parseErr error
	sops              *sopsfile.Metadata
}

var nothingLearnt learnt

// facts is what x has learnt.
func (x *File) facts() *learnt {
	if l := x.learnt.Load(); l != nil {
		return l
	}
	return &nothingLearnt
}

// learnFact changes what x has learnt (a copy: readers hold no lock); x.mu
// is held.
func (x *File) learnFact(change func(*learnt)) {
	l := *x.facts()
	change(&l)
	if l.readErr == nil && l.parseErr == nil && l.sops == nil {
		x.learnt.Store(nil)
		return
	}
	x.learnt.Store(&l)
}

// NewFiles returns an index of the files of fsys, which reads files of at
// most fsutil.DefaultMaxFileSize bytes. Load makes one for each Repo
// (Repo.Files, reading values files as large as Options.MaxValuesSize
// too); a Repo built another way can be given one.
func NewFiles(fsys fs.FS) *Files {
	return &Files{fsys: fsys, limit: fsutil.DefaultMaxFileSize, data: held{budget: MaxHeldData}, parsed: held{budget: MaxHeldParsed}}
}

// Get returns the file at repository path p (following links inside the
// repository). It reads nothing until asked.
func (f *Files) Get(p string) *File {
	f.mu.RLock()
	x, ok := f.entries[p]
	f.mu.RUnlock()
	if ok {
		return x
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if x, ok := f.entries[p]; ok {
		return x
	}
	if f.entries == nil {
		f.entries = map[string]*File{}
	}
	x = &File{Path: p, files: f}
	switch {
	case f.forgot.Has(f.listed(), p): // what its first read and parse learnt: nothing
		x.read, x.parsed = true, true
	case f.sealed[p] != nil: // its SOPS metadata, and nothing else
		x.read, x.parsed = true, true
		x.learnt.Store(&learnt{sops: f.sealed[p]})
	case f.sopsless.Has(f.listed(), p):
		x.noSops.Store(true)
	}
	f.entries[p] = x
	return x
}

// Paths yields every file of the repository, in lexical order, leaving
// out hidden folders (.git, .github, ...) and node_modules; the folders
// are listed once, on the first call. Folders that cannot be read are left
// to layout's diagnostics.
func (f *Files) Paths() iter.Seq[string] {
	f.listOnce.Do(func() {
		var paths []string
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
			paths = append(paths, p)
			return nil
		})
		sort.Strings(paths)
		f.listing = pathset.Pack(paths)
		f.isListed.Store(true)
	})
	return f.listing.All()
}

// listed is the repository's listing, or nil before Paths made it.
func (f *Files) listed() *pathset.Set {
	if !f.isListed.Load() {
		return nil
	}
	return &f.listing
}

// Data returns the file's content. A file that is not a regular file
// (fsutil.ErrNotRegular) or is over the index's limit (fsutil.ErrTooLarge)
// is not read, and its error is kept.
func (x *File) Data() ([]byte, error) {
	if p := x.data.Load(); p != nil {
		x.files.data.touch(x)
		return *p, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.dataLocked()
}

func (x *File) dataLocked() ([]byte, error) {
	if p := x.data.Load(); p != nil {
		return *p, nil
	}
	if err := x.facts().readErr; x.read && err != nil {
		return nil, err
	}
	real, err := fsutil.Resolve(x.files.fsys, x.Path)
	var data []byte
	if err == nil {
		data, err = fsutil.ReadFile(x.files.fsys, real, x.files.limit)
	}
	x.read = true
	if err != nil || x.facts().readErr != nil {
		x.learnFact(func(l *learnt) { l.readErr = err })
	}
	if err != nil {
		return nil, err
	}
	x.data.Store(&data)
	x.files.data.keep(x, len(data), func() { x.data.Store(nil) })
	return data, nil
}

// Docs returns the top-level node of each YAML document of the file (a
// .json file is read as the YAML it is). On a syntax error it returns the
// documents before it and the error. The nodes are shared: read them,
// never change them.
func (x *File) Docs() ([]*yaml.Node, error) {
	if p := x.docs.Load(); p != nil {
		x.files.parsed.touch(x)
		return *p, x.facts().parseErr
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if p := x.docs.Load(); p != nil {
		return *p, x.facts().parseErr
	}
	data, err := x.dataLocked()
	if err != nil {
		return nil, err
	}
	docs, err := parseDocs(x.Path, data)
	if !x.parsed {
		x.parsed = true
		var md *sopsfile.Metadata
		if len(docs) > 0 {
			md, _ = sopsfile.InspectNode(docs[0])
		}
		x.learnFact(func(l *learnt) { l.parseErr, l.sops = err, x.files.sops.one(md) })
	}
	x.docs.Store(&docs)
	x.files.parsed.keep(x, len(data), func() { x.docs.Store(nil) })
	return docs, err
}

// parseDocs parses the YAML documents of data, the file p's content.
func parseDocs(p string, data []byte) ([]*yaml.Node, error) {
	if path.Ext(p) == ".json" {
		// JSON is YAML, but for tabs: outside strings (where JSON
		// escapes them) a tab is only white space, so this keeps the
		// meaning and every line number.
		data = bytes.ReplaceAll(data, []byte("\t"), []byte(" "))
	}
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				return docs, err
			}
			return docs, nil
		}
		docs = append(docs, yamlpos.Root(&n))
	}
}

// ValuesNode is the values a Helm reads from the file, as one node with
// each key's line: its first document under Helm 3, all of them merged
// under Helm 4 (helmvalues.Node), from the file's one parse (Docs).
func (x *File) ValuesNode(helm4 bool) (*yaml.Node, error) {
	docs, err := x.Docs()
	if docs, err = helmvalues.Counted(docs, err, helm4); err != nil {
		return nil, err
	}
	return helmvalues.Node(docs, helm4), nil
}

// Sops returns the file's SOPS metadata, nil when it is not a
// SOPS-encrypted YAML document: learnt from its first parse, and kept.
// Files encrypted alike share one Metadata: read it, never change it. A
// file whose bytes cannot spell the metadata's key (spellsNoSops) is not
// parsed to tell: most files a scan asks about.
func (x *File) Sops() *sopsfile.Metadata {
	if x.noSops.Load() {
		return nil
	}
	x.mu.Lock()
	if !x.learntLocked() {
		if data, err := x.dataLocked(); err == nil && spellsNoSops(data) {
			x.noSops.Store(true)
			x.mu.Unlock()
			return nil
		}
	}
	x.mu.Unlock()
	x.learn()
	return x.facts().sops
}

// spellsNoSops reports whether no YAML parse of data can give its first
// document the top-level key "sops", the only place sopsfile.InspectNode
// finds metadata: the bytes do not hold "sops", and hold nothing that
// could spell it otherwise: a backslash (an escape in a double-quoted
// scalar, "\x73ops"; a line joined), or a NUL byte (UTF-16, which the YAML
// parser reads too). A plain, single-quoted or block scalar holds its
// letters as they are; a tag, an anchor or a folded line never joins
// two into one word; an alias key is not read as its anchor's value.
func spellsNoSops(data []byte) bool {
	return !bytes.Contains(data, []byte(sopsfile.MetadataKey)) && bytes.IndexByte(data, '\\') < 0 && bytes.IndexByte(data, 0) < 0
}

// Err is why the file could not be read, or parsed (the documents before
// the error are Docs'): learnt from its first parse, and kept.
func (x *File) Err() error {
	x.learn()
	l := x.facts()
	return cmp.Or(l.readErr, l.parseErr)
}

// learn parses the file unless it has been parsed, or could not be read.
func (x *File) learn() {
	x.mu.Lock()
	known := x.learntLocked()
	x.mu.Unlock()
	if !known {
		x.Docs()
	}
}

// learntLocked reports whether x's facts are known: it was parsed, or
// could not be read; x.mu is held.
func (x *File) learntLocked() bool { return x.parsed || x.read && x.facts().readErr != nil }

// Encrypted reports whether the file is a SOPS-encrypted YAML document.
func (x *File) Encrypted() bool { return x.Sops() != nil }
