package charts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/repotool/repotool/pkg/layout"
)

// cannotLoadRE finds the file in helm's "cannot load values.yaml: ..."
var cannotLoadRE = regexp.MustCompile(`^cannot load ([\w./-]+): `)

// load returns the loaded chart in dir with all its dependencies
// attached; stack holds the charts that depend on it, to refuse a cycle.
func (s *Supply) load(ctx context.Context, dir string, stack []string) (*Loaded, error) {
	if slices.Contains(stack, dir) {
		return nil, fmt.Errorf("chart %s depends on itself through %s", dir, strings.Join(append(stack, dir), " -> "))
	}
	return s.loaded.Get(dir, func() (*Loaded, error) {
		return s.loadChart(ctx, dir, append(stack, dir))
	})
}

func (s *Supply) loadChart(ctx context.Context, dir string, stack []string) (*Loaded, error) {
	chartYAML, _ := s.files.Get(path.Join(dir, "Chart.yaml")).Data() // nil: readChartFiles reads it, and says why it cannot
	files, err := readChartFiles(s.fsys, dir, chartYAML)
	if err != nil {
		return nil, err
	}
	c, err := loader.LoadFiles(files)
	if err == nil && s.cfg.Helm4 {
		err = chartValues4(c)
	}
	if err != nil {
		file := dir
		if m := cannotLoadRE.FindStringSubmatch(err.Error()); m != nil {
			file = path.Join(dir, m[1]) // helm names the file it could not load
		}
		return nil, &ChartError{Chart: file, Err: err, Hint: "fix the chart so that `helm lint " + dir + "` passes"}
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
	if err := s.resolveDependencies(ctx, c, dir, origins, stack); err != nil {
		return nil, err
	}
	return &Loaded{Chart: c, Origins: origins, LockErr: lockErr}, nil
}

// resolveDependencies attaches every dependency Chart.yaml declares that is
// not vendored under charts/: file:// charts from the repository, remote
// charts from the cache (downloading them once when allowed).
func (s *Supply) resolveDependencies(ctx context.Context, c *chart.Chart, dir string, origins map[string]string, stack []string) error {
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
			e, err := s.load(ctx, subDir, stack)
			if errors.Is(err, fs.ErrNotExist) {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo,
					Reason: subDir + "/Chart.yaml does not exist", Hint: "fix the path in " + dir + "/Chart.yaml"}
			}
			if err != nil {
				return err
			}
			if err := checkVersion(dep, e.Chart); err != nil {
				return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo, Reason: err.Error(),
					Hint: "update the dependency's version in " + dir + "/Chart.yaml"}
			}
			sub = Copy(e.Chart)
			origin = subDir
			for p, o := range e.Origins {
				// Re-root the dependency's own tree under this chart.
				rel := strings.TrimPrefix(p, e.Chart.ChartFullPath())
				origins[c.ChartFullPath()+"/charts/"+sub.Name()+rel] = o
			}
		case strings.HasPrefix(repo, "https://"), strings.HasPrefix(repo, "http://"), strings.HasPrefix(repo, "oci://"):
			if lock == nil {
				l, err := readLock(s.fsys, dir, c)
				if err != nil {
					return err
				}
				lock = l
			}
			archive, data, err := s.remoteChart(ctx, dir, dep, lock)
			if err != nil {
				return err
			}
			sub, err = loader.LoadArchive(bytes.NewReader(data))
			if err == nil && s.cfg.Helm4 {
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
				Hint: "give the repository as an https://, oci:// or file:// URL (repository names like @stable need helm's repositories.yaml), or vendor the " +
					"chart into " + dir + "/charts/"}
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
