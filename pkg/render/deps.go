package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/provenance"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
)

// maxDownload bounds a downloaded index or chart archive.
const maxDownload = 64 << 20

// readLock reads dir/Chart.lock (nil when absent) and checks that it matches
// Chart.yaml's dependencies, as helm dependency build does.
func readLock(fsys fs.FS, dir string, c *chart.Chart) (*chart.Lock, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, "Chart.lock"))
	if errors.Is(err, fs.ErrNotExist) {
		return &chart.Lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	lock := &chart.Lock{}
	if err := yaml.Unmarshal(data, lock); err != nil {
		return nil, &ChartError{Chart: dir + "/Chart.lock", Err: err, Hint: "regenerate it with `helm dependency update " + dir + "`"}
	}
	want, err := hashReq(c.Metadata.Dependencies, lock.Dependencies)
	if err != nil {
		return nil, err
	}
	if lock.Digest != "" && lock.Digest != want {
		return nil, &ChartError{Chart: dir + "/Chart.lock", Err: errors.New("the lock file is out of sync with the dependencies in Chart.yaml"),
			Hint: "run `helm dependency update " + dir + "` and commit Chart.lock"}
	}
	return lock, nil
}

// hashReq is helm's resolver.HashReq (an internal package): the digest
// Chart.lock records over Chart.yaml's dependencies and the locked ones.
func hashReq(req, lock []*chart.Dependency) (string, error) {
	data, err := json.Marshal([2][]*chart.Dependency{req, lock})
	if err != nil {
		return "", err
	}
	s, err := provenance.Digest(bytes.NewBuffer(data))
	return "sha256:" + s, err
}

// remoteChart returns a remote dependency's archive from the cache,
// downloading it once when it is not there. It returns the archive's cache
// path (for messages) and its bytes.
func (r *Renderer) remoteChart(ctx context.Context, dir string, dep *chart.Dependency, lock *chart.Lock) (string, []byte, error) {
	depErr := func(reason, hint string) error {
		return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: reason, Hint: hint}
	}
	version := dep.Version
	for _, l := range lock.Dependencies {
		if l.Name == dep.Name && l.Repository == dep.Repository {
			version = l.Version // Chart.lock pins the exact version
		}
	}
	exact := isExactVersion(version)
	if r.opts.CacheDir == "" && (r.opts.Offline || !exact) {
		return "", nil, depErr("it is not vendored under "+dir+"/charts/ and no dependency cache is configured",
			"vendor it with `helm dependency build "+dir+"`, or set a cache folder")
	}
	key := cacheKey(dep.Repository, dep.Name, version)
	file := filepath.Join(r.opts.CacheDir, "charts", key+".tgz")
	if exact && r.opts.CacheDir != "" {
		if data, err := readCached(file); err == nil {
			return file, data, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			r.log.Warn("ignoring a corrupt cache entry", "file", file, "error", err)
		}
	}
	if r.opts.Offline {
		return "", nil, depErr(fmt.Sprintf("version %s is neither vendored under %s/charts/ nor in the cache, and downloads are off (offline)", version, dir),
			"run once without --offline to fill the cache, or vendor the chart with `helm dependency build "+dir+"`")
	}
	var data []byte
	var err error
	if strings.HasPrefix(dep.Repository, "oci://") {
		if !exact {
			return "", nil, depErr(fmt.Sprintf("version %q is a range; OCI dependencies need an exact version", version), "pin an exact version in Chart.yaml or Chart.lock")
		}
		data, err = r.pullOCI(dep, version)
	} else {
		data, version, err = r.downloadHTTP(ctx, dep, version)
	}
	if err != nil {
		return "", nil, depErr(err.Error(), "check the repository URL and your network, or vendor the chart with `helm dependency build "+dir+"`")
	}
	if r.opts.CacheDir == "" {
		return "(downloaded)", data, nil
	}
	file = filepath.Join(r.opts.CacheDir, "charts", cacheKey(dep.Repository, dep.Name, version)+".tgz")
	if err := writeCached(file, data); err != nil {
		return "", nil, fmt.Errorf("write dependency cache: %w", err)
	}
	r.log.Debug("cached dependency", "chart", dir, "dependency", dep.Name, "version", version, "file", file)
	return file, data, nil
}

// downloadHTTP resolves version in the repository's index.yaml and downloads
// the archive, verifying it against the index's digest.
func (r *Renderer) downloadHTTP(ctx context.Context, dep *chart.Dependency, version string) ([]byte, string, error) {
	indexURL := strings.TrimSuffix(dep.Repository, "/") + "/index.yaml"
	data, err := r.get(ctx, indexURL)
	if err != nil {
		return nil, "", err
	}
	var idx repo.IndexFile
	if err := yaml.Unmarshal(data, &idx); err != nil || idx.APIVersion == "" {
		return nil, "", fmt.Errorf("%s is not a chart repository index", indexURL)
	}
	idx.SortEntries()
	cv, err := idx.Get(dep.Name, version)
	if err != nil || len(cv.URLs) == 0 {
		return nil, "", fmt.Errorf("the repository has no chart %s matching version %q", dep.Name, version)
	}
	u, err := repo.ResolveReferenceURL(dep.Repository, cv.URLs[0])
	if err != nil {
		return nil, "", err
	}
	archive, err := r.get(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if cv.Digest != "" {
		sum := sha256.Sum256(archive)
		if got := hex.EncodeToString(sum[:]); got != cv.Digest {
			return nil, "", fmt.Errorf("the archive downloaded from %s has digest sha256:%s, but the repository index says %s", u, got, cv.Digest)
		}
	}
	return archive, cv.Version, nil
}

func (r *Renderer) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDownload+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDownload {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, maxDownload)
	}
	return data, nil
}

func (r *Renderer) pullOCI(dep *chart.Dependency, version string) ([]byte, error) {
	opts := []registry.ClientOption{registry.ClientOptWriter(io.Discard), registry.ClientOptHTTPClient(r.http)}
	if r.opts.PlainHTTPRegistries {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	client, err := registry.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	ref := strings.TrimPrefix(strings.TrimSuffix(dep.Repository, "/"), "oci://") + "/" + dep.Name + ":" + version
	res, err := client.Pull(ref, registry.PullOptWithChart(true))
	if err != nil {
		return nil, err
	}
	return res.Chart.Data, nil
}

func isExactVersion(v string) bool {
	if v == "" {
		return false
	}
	_, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v"))
	return err == nil
}

// cacheKey addresses a cache entry by repository, chart name and version.
func cacheKey(repository, name, version string) string {
	sum := sha256.Sum256([]byte(strings.TrimSuffix(repository, "/") + "\x00" + name + "\x00" + version))
	return hex.EncodeToString(sum[:])
}

// readCached reads an archive and checks it against the digest stored next
// to it, so a truncated or edited entry is never used.
func readCached(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	want, err := os.ReadFile(file + ".sha256")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != strings.TrimSpace(string(want)) {
		return nil, errors.New("digest mismatch")
	}
	return data, nil
}

// writeCached writes an archive and then its digest, each atomically, so
// concurrent runs never see a partial entry (an archive without its digest
// is a cache miss).
func writeCached(file string, data []byte) error {
	sum := sha256.Sum256(data)
	if err := fsutil.WriteFileAtomic(file, data); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(file+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"))
}
