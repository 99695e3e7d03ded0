package charts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
)

// Fetched is one dependency of a chart, as repotool deps fetched it.
type Fetched struct {
	Name, Repository string
	// Constraint is the version Chart.yaml asks; Version the one fetched
	// (Chart.lock's, else the newest the constraint allows).
	Constraint, Version string
	// Digest is the archive's (sha256:<hex>); "" for a file:// or a
	// vendored dependency, which is not fetched.
	Digest string
	// Vendored is true for a dependency under the chart's charts/ folder:
	// render uses it as it is.
	Vendored bool
}

// Fetch fetches the remote dependencies of the chart in dir into the
// cache, verified as Load verifies them: at the versions its Chart.lock
// pins (which must be in sync), or, with fresh, at the newest versions
// Chart.yaml's constraints allow, its Chart.lock ignored. It returns every
// dependency in Chart.yaml's order and, with fresh, the lock that records
// them (its Generated left zero).
func (s *Supply) Fetch(ctx context.Context, dir string, fresh bool) ([]Fetched, *chart.Lock, error) {
	md, err := s.chartfile(dir)
	if err != nil {
		return nil, nil, err
	}
	lock := &chart.Lock{}
	if !fresh {
		if lock, err = readLock(s.fsys, dir, &chart.Chart{Metadata: md}); err != nil {
			return nil, nil, err
		}
	}
	var out []Fetched
	var locked []*chart.Dependency
	for _, dep := range md.Dependencies {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		f := Fetched{Name: dep.Name, Repository: dep.Repository, Constraint: dep.Version}
		switch repo := dep.Repository; {
		case strings.HasPrefix(repo, "file://"):
			f.Version, err = s.localVersion(dir, dep)
		case strings.HasPrefix(repo, "https://"), strings.HasPrefix(repo, "http://"), strings.HasPrefix(repo, "oci://"):
			if !fresh && s.vendored(dir, dep.Name) {
				f.Vendored, f.Version = true, LockedVersion(dep, lock)
				break
			}
			f.Version, f.Digest, err = s.fetchRemote(ctx, dir, dep, lock)
		default:
			err = &DependencyError{Chart: dir, Dependency: dep.Name, Repository: repo, Reason: "the repository is not a URL repotool can use",
				Hint: "give the repository as an https://, oci:// or file:// URL"}
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, f)
		locked = append(locked, &chart.Dependency{Name: dep.Name, Repository: dep.Repository, Version: f.Version})
	}
	if !fresh {
		return out, nil, nil
	}
	digest, err := hashReq(md.Dependencies, locked)
	if err != nil {
		return nil, nil, err
	}
	return out, &chart.Lock{Dependencies: locked, Digest: digest}, nil
}

// fetchRemote fetches one remote dependency as Load does, and returns the
// version and digest of the archive.
func (s *Supply) fetchRemote(ctx context.Context, dir string, dep *chart.Dependency, lock *chart.Lock) (string, string, error) {
	archive, data, err := s.remoteChart(ctx, dir, dep, lock)
	if err != nil {
		return "", "", err
	}
	sub, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return "", "", &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: "the archive is not a chart: " + err.Error(),
			Hint: "clear the cache entry " + archive + " and try again"}
	}
	if err := checkVersion(dep, sub); err != nil {
		return "", "", &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: err.Error(), Hint: "clear the cache entry " + archive}
	}
	return sub.Metadata.Version, digestOf(data), nil
}

// localVersion is the version of a file:// dependency's chart, which
// Chart.lock records as helm dependency update does.
func (s *Supply) localVersion(dir string, dep *chart.Dependency) (string, error) {
	sub, _, err := layout.FileDependency(dir, dep.Repository)
	if err != nil {
		return "", &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: err.Error(),
			Hint: "keep file:// dependencies inside the repository, as a path relative to the chart"}
	}
	md, err := s.chartfile(sub)
	if err != nil {
		return "", &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: err.Error(), Hint: "fix the path in " + dir + "/Chart.yaml"}
	}
	if err := checkVersion(dep, &chart.Chart{Metadata: md}); err != nil {
		return "", &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: err.Error(),
			Hint: "update the dependency's version in " + dir + "/Chart.yaml"}
	}
	return md.Version, nil
}

// chartfile reads dir/Chart.yaml.
func (s *Supply) chartfile(dir string) (*chart.Metadata, error) {
	data, err := fsutil.ReadFile(s.fsys, path.Join(dir, "Chart.yaml"), fsutil.DefaultMaxFileSize)
	if err != nil {
		return nil, &ChartError{Chart: dir + "/Chart.yaml", Err: err, Hint: "give the folder of a chart"}
	}
	md := &chart.Metadata{}
	if err := yaml.Unmarshal(data, md); err != nil {
		return nil, &ChartError{Chart: dir + "/Chart.yaml", Err: err, Hint: "fix the YAML"}
	}
	if md.Name == "" {
		return nil, &ChartError{Chart: dir + "/Chart.yaml", Err: errors.New("the chart has no name"), Hint: "add `name: <chart name>`"}
	}
	return md, nil
}

// vendored reports whether the chart in dir carries dependency name under
// charts/, packaged (<name>-<version>.tgz) or as a folder, which Load
// uses instead of fetching it.
func (s *Supply) vendored(dir, name string) bool {
	if archives, _ := fs.Glob(s.fsys, path.Join(dir, "charts", escapeGlob(name)+"-*.tgz")); len(archives) > 0 {
		return true
	}
	_, err := fs.Stat(s.fsys, path.Join(dir, "charts", name, "Chart.yaml"))
	return err == nil
}

// escapeGlob escapes the characters fs.Glob reads in a name.
func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

// LockYAML is a Chart.lock's content as helm writes it.
func LockYAML(lock *chart.Lock) ([]byte, error) {
	data, err := yaml.Marshal(lock)
	if err != nil {
		return nil, fmt.Errorf("write Chart.lock: %w", err)
	}
	return data, nil
}
