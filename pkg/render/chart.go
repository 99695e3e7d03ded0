package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// cannotLoadRE finds the file in helm's "cannot load values.yaml: ..."
var cannotLoadRE = regexp.MustCompile(`^cannot load ([\w./-]+): `)

// chartEntry is a loaded chart. Each chart folder is loaded once per
// Renderer (Renderer.charts), however many targets use it. Loaded charts are
// templates: every render works on a deep copy, because Helm's install
// action mutates the chart it is given.
type chartEntry struct {
	chart *chart.Chart
	// origins maps a chart's full path in the tree (chart.ChartFullPath,
	// e.g. "namespace-a/charts/common") to where its files live in the
	// repository: a folder, or a .tgz file.
	origins map[string]string
	// lockErr is why the chart's Chart.lock is out of sync with its
	// Chart.yaml, checked as loaded (before rendering marks dependencies
	// enabled); it fails a target whose chart this is, as `helm dependency
	// build` fails, and not a chart that depends on it.
	lockErr error
}

// chart returns the loaded chart in dir (a repository path) with all its
// dependencies attached. The result must not be modified.
func (r *Renderer) chart(ctx context.Context, dir string, stack []string) (*chartEntry, error) {
	if slices.Contains(stack, dir) {
		return nil, fmt.Errorf("chart %s depends on itself through %s", dir, strings.Join(append(stack, dir), " -> "))
	}
	return r.charts.get(dir, func() (*chartEntry, error) {
		c, origins, lockErr, err := r.loadChart(ctx, dir, append(stack, dir))
		return &chartEntry{chart: c, origins: origins, lockErr: lockErr}, err
	})
}

func (r *Renderer) loadChart(ctx context.Context, dir string, stack []string) (*chart.Chart, map[string]string, error, error) {
	files, err := readChartFiles(r.fsys, dir, r.graph.takeChartYAML(dir))
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := loader.LoadFiles(files)
	if err == nil && r.helm4() {
		err = chartValues4(c)
	}
	if err != nil {
		file := dir
		if m := cannotLoadRE.FindStringSubmatch(err.Error()); m != nil {
			file = path.Join(dir, m[1]) // helm names the file it could not load
		}
		return nil, nil, nil, &ChartError{Chart: file, Err: err, Hint: "fix the chart so that `helm lint " + dir + "` passes"}
	}
	var lockErr error
	if c.Lock != nil && c.Metadata.APIVersion == chart.APIVersionV2 {
		lockErr = checkLock(dir, c.Metadata.Dependencies, c.Lock)
	}
	origins := map[string]string{c.ChartFullPath(): dir}
	for _, sub := range c.Dependencies() {
		// Subcharts vendored under charts/, as folders or archives.
		origins[sub.ChartFullPath()] = vendoredOrigin(dir, sub, files)
		addOrigins(origins, sub, origins[sub.ChartFullPath()])
	}
	if err := r.resolveDependencies(ctx, c, dir, origins, stack); err != nil {
		return nil, nil, nil, err
	}
	return c, origins, lockErr, nil
}

// resolveDependencies attaches every dependency Chart.yaml declares that is
// not vendored under charts/: file:// charts from the repository, remote
// charts from the cache (downloading them once when allowed).
func (r *Renderer) resolveDependencies(ctx context.Context, c *chart.Chart, dir string, origins map[string]string, stack []string) error {
	present := map[string]bool{}
	for _, sub := range c.Dependencies() {
		present[sub.Name()] = true
	}
	var lock *chart.Lock
	for _, dep := range c.Metadata.Dependencies {
		if present[dep.Name] {
			continue
		}
		var sub *chart.Chart
		var origin string
		switch repo := dep.Repository; {
		case strings.HasPrefix(repo, "file://"):
			subDir, _, err := layout.FileDependency(dir, repo)
			if err != nil {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo,
					Reason: err.Error(), Hint: "keep file:// dependencies inside the repository, as a path relative to the chart"}
			}
			e, err := r.chart(ctx, subDir, stack)
			if errors.Is(err, fs.ErrNotExist) {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo,
					Reason: subDir + "/Chart.yaml does not exist", Hint: "fix the path in " + dir + "/Chart.yaml"}
			}
			if err != nil {
				return err
			}
			if err := checkVersion(dep, e.chart); err != nil {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo, Reason: err.Error(),
					Hint: "update the dependency's version in " + dir + "/Chart.yaml"}
			}
			sub = copyChart(e.chart)
			origin = subDir
			for p, o := range e.origins {
				// Re-root the dependency's own tree under this chart.
				rel := strings.TrimPrefix(p, e.chart.ChartFullPath())
				origins[c.ChartFullPath()+"/charts/"+sub.Name()+rel] = o
			}
		case strings.HasPrefix(repo, "https://"), strings.HasPrefix(repo, "http://"), strings.HasPrefix(repo, "oci://"):
			if lock == nil {
				l, err := readLock(r.fsys, dir, c)
				if err != nil {
					return err
				}
				lock = l
			}
			archive, data, err := r.remoteChart(ctx, dir, dep, lock)
			if err != nil {
				return err
			}
			sub, err = loader.LoadArchive(bytes.NewReader(data))
			if err == nil && r.helm4() {
				err = chartValues4(sub)
			}
			if err != nil {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo, Reason: "the downloaded archive is not a chart: " + err.Error(),
					Hint: "clear the cache entry " + archive + " and try again"}
			}
			if err := checkVersion(dep, sub); err != nil {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo, Reason: err.Error(), Hint: "clear the cache entry " + archive}
			}
			origin = archive
			addOrigins(origins, sub, archive)
		default:
			return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo,
				Reason: "the repository is not a URL repotool can use",
				Hint:   "give the repository as an https://, oci:// or file:// URL (repository names like @stable need helm's repositories.yaml), or vendor the chart into " + dir + "/charts/"}
		}
		c.AddDependency(sub)
		origins[c.ChartFullPath()+"/charts/"+sub.Name()] = origin
	}
	return nil
}

// checkVersion checks a resolved dependency against its version constraint,
// as helm dependency build does.
func checkVersion(dep *chart.Dependency, sub *chart.Chart) error {
	if sub.Name() != dep.Name {
		return fmt.Errorf("the chart found is named %q, not %q", sub.Name(), dep.Name)
	}
	if dep.Version == "" {
		return nil
	}
	constraint, err := semver.NewConstraint(dep.Version)
	if err != nil {
		return fmt.Errorf("version %q is not a semantic version constraint", dep.Version)
	}
	v, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil {
		return fmt.Errorf("the chart's version %q is not a semantic version", sub.Metadata.Version)
	}
	if !constraint.Check(v) {
		return fmt.Errorf("the chart found is version %s, which does not satisfy %q", sub.Metadata.Version, dep.Version)
	}
	return nil
}

// vendoredOrigin names where a subchart loaded from charts/ lives: the
// archive file, or the folder.
func vendoredOrigin(dir string, sub *chart.Chart, files []*loader.BufferedFile) string {
	for _, f := range files {
		if strings.HasPrefix(f.Name, "charts/") && strings.HasSuffix(f.Name, ".tgz") && strings.Count(f.Name, "/") == 1 {
			base := strings.TrimSuffix(strings.TrimPrefix(f.Name, "charts/"), ".tgz")
			if base == sub.Name()+"-"+sub.Metadata.Version || base == sub.Name() {
				return path.Join(dir, f.Name)
			}
		}
	}
	return path.Join(dir, "charts", sub.Name())
}

// addOrigins records origin for every chart below c (same archive or folder tree).
func addOrigins(origins map[string]string, c *chart.Chart, origin string) {
	for _, sub := range c.Dependencies() {
		o := origin
		if !strings.HasSuffix(origin, ".tgz") {
			o = path.Join(origin, "charts", sub.Name())
		}
		origins[sub.ChartFullPath()] = o
		addOrigins(origins, sub, o)
	}
}

// readChartFiles reads a chart folder from fsys the way helm's loader.LoadDir
// reads one from disk: .helmignore rules (with helm's defaults), symlinks
// followed (but never out of the repository), a UTF-8 BOM trimmed, irregular
// and oversized files refused. chartYAML, when not nil, is the content of
// Chart.yaml, already read.
func readChartFiles(fsys fs.FS, dir string, chartYAML []byte) ([]*loader.BufferedFile, error) {
	real, err := fsutil.Resolve(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("chart %s: %w", dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, chartPathError(dir, err)
	}
	if _, err := fs.Stat(fsys, path.Join(real, "Chart.yaml")); err != nil {
		return nil, fmt.Errorf("chart %s: %w", dir, fs.ErrNotExist)
	}
	rules := ignore.Empty()
	switch data, err := fsutil.ReadFile(fsys, path.Join(real, ignore.HelmIgnore), loader.MaxDecompressedFileSize); {
	case err == nil:
		rules, err = ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, &ChartError{Chart: dir, Err: fmt.Errorf("parse %s: %w", ignore.HelmIgnore, err), Hint: "fix the .helmignore file"}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &ChartError{Chart: dir, Err: err, Hint: "make .helmignore a regular file of patterns, or remove it"}
	}
	rules.AddDefaults()
	var files []*loader.BufferedFile
	var total int64
	err = fsutil.Walk(fsys, dir, func(n, p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return chartPathError(path.Join(dir, n), err)
		}
		if rules.Ignore(n, fi) {
			if fi.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if fi.IsDir() {
			return nil
		}
		if !fi.Mode().IsRegular() {
			return &ChartError{Chart: dir, Err: fmt.Errorf("cannot load %s: %w", n, &fsutil.NotRegularError{Mode: fi.Mode()}), Hint: "remove it, or add it to .helmignore"}
		}
		if fi.Size() > loader.MaxDecompressedFileSize {
			return &ChartError{Chart: dir, Err: fmt.Errorf("file %s is larger than %d bytes", n, loader.MaxDecompressedFileSize), Hint: "remove it or add it to .helmignore"}
		}
		if total += fi.Size(); total > loader.MaxDecompressedChartSize {
			return &ChartError{Chart: dir, Err: fmt.Errorf("the chart's files add up to more than %d bytes", loader.MaxDecompressedChartSize), Hint: "add what the chart does not need to .helmignore"}
		}
		data := chartYAML
		if n != "Chart.yaml" || data == nil {
			if data, err = fsutil.ReadFile(fsys, p, loader.MaxDecompressedFileSize); err != nil {
				return err
			}
		}
		files = append(files, &loader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, utf8BOM)})
		return nil
	})
	if err != nil {
		var ce *ChartError
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, &ChartError{Chart: dir, Err: err, Hint: "check the chart's files"}
	}
	return files, nil
}

func chartPathError(p string, err error) error {
	switch {
	case errors.Is(err, fsutil.ErrSymlinkEscape):
		return &ChartError{Chart: p, Err: err, Hint: "replace the link with the files it points to, or point it inside the repository"}
	case errors.Is(err, fsutil.ErrSymlinkLoop):
		return &ChartError{Chart: p, Err: err, Hint: "remove the link, or point it at a folder that does not contain it"}
	case errors.Is(err, fs.ErrNotExist):
		return &ChartError{Chart: p, Err: fmt.Errorf("broken symbolic link: its target does not exist (%w)", fs.ErrNotExist), Hint: "point the link at an existing file, or remove it"}
	}
	return &ChartError{Chart: p, Err: err, Hint: "check the path"}
}

// copyChart deep-copies the parts of a chart that rendering mutates
// (metadata and its dependency list, values, the dependency tree), sharing
// the immutable file contents.
func copyChart(c *chart.Chart) *chart.Chart {
	out := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = make([]*chart.Dependency, len(c.Metadata.Dependencies))
		for i, d := range c.Metadata.Dependencies {
			dd := *d
			dd.Tags = slices.Clone(d.Tags)
			dd.ImportValues = slices.Clone(d.ImportValues)
			md.Dependencies[i] = &dd
		}
		out.Metadata = &md
	}
	out.Values = deepCopyMap(c.Values)
	out.Templates = slices.Clone(c.Templates)
	out.Files = slices.Clone(c.Files)
	out.Schema = slices.Clone(c.Schema)
	deps := make([]*chart.Chart, 0, len(c.Dependencies()))
	for _, d := range c.Dependencies() {
		deps = append(deps, copyChart(d))
	}
	out.SetDependencies(deps...)
	return &out
}

func deepCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = deepCopy(v)
	}
	return out
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return deepCopyMap(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}
