// Package charts supplies the charts a Renderer renders: a chart folder
// of the repository read as Helm's loader reads one (.helmignore, links
// followed only inside the repository, size limits), its dependencies
// attached (vendored under charts/, file:// charts of the repository, and
// remote ones from a cache verified against repotool.sum or the chart
// repository's index), and the state of its Chart.lock. Each chart is
// loaded once per Supply, however many targets use it; the result is a
// template that rendering copies (Copy), never changes.
package charts

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render/internal/once"
)

// Config is what a Supply needs besides the repository's files.
type Config struct {
	// Helm4 reads values.yaml files as Helm 4 does: every document.
	Helm4 bool
	// CacheDir, Offline and PlainHTTP are render.Options' CacheDir,
	// Offline and PlainHTTPRegistries.
	CacheDir  string
	Offline   bool
	PlainHTTP bool
	HTTP      *http.Client
	Log       *slog.Logger
	// Indexes are the chart repositories' indexes, which Supplies of one
	// run may share (NewIndexes).
	Indexes *Indexes
}

// Indexes are chart repositories' indexes, by URL, each downloaded once.
type Indexes struct{ m once.Map[*index] }

// NewIndexes returns an empty set of indexes.
func NewIndexes() *Indexes { return &Indexes{} }

// Supply loads the charts of one repository. It is safe for concurrent
// use.
type Supply struct {
	fsys   fs.FS
	files  *layout.Files
	cfg    Config
	loaded once.Map[*Loaded]
	graph  depGraph
	sums   func() (map[string]string, error) // the pins of layout.SumsFile, read once
}

// New returns a Supply reading the repository fsys through its file index
// files (a new one when nil).
func New(fsys fs.FS, files *layout.Files, cfg Config) *Supply {
	if files == nil {
		files = layout.NewFiles(fsys)
	}
	if cfg.HTTP == nil {
		cfg.HTTP = http.DefaultClient
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Indexes == nil {
		cfg.Indexes = NewIndexes()
	}
	s := &Supply{fsys: fsys, files: files, cfg: cfg}
	s.sums = sync.OnceValues(func() (map[string]string, error) { return parseSums(fsys) })
	return s
}

// Loaded is a chart as loaded: it must not be modified (Copy it).
type Loaded struct {
	Chart *chart.Chart
	// Origins maps a chart's full path in the tree (chart.ChartFullPath,
	// e.g. "namespace-a/charts/common") to where its files live in the
	// repository: a folder, or a .tgz file.
	Origins map[string]string
	// LockErr is why the chart's Chart.lock is out of sync with its
	// Chart.yaml, checked as loaded (before rendering marks dependencies
	// enabled); it fails a target whose chart this is, as `helm dependency
	// build` fails, and not a chart that depends on it.
	LockErr error
}

// Load returns the chart in dir, a repository folder, with all its
// dependencies attached. A file:// dependency cycle fails it before any
// chart is loaded.
func (s *Supply) Load(ctx context.Context, dir string) (*Loaded, error) {
	if err := s.dependencyCycle(dir); err != nil {
		return nil, err
	}
	return s.load(ctx, dir, nil)
}

// Release lets the chart in dir go once no target of the run needs it
// again, so that a run's memory follows the charts in use rather than
// every chart it has loaded: a later Load reads it again. The charts it
// depends on stay (others may share them).
func (s *Supply) Release(dir string) { s.loaded.Forget(dir) }
