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
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/provenance"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
)

// maxDownload bounds a downloaded index or chart archive.
const maxDownload = 64 << 20

// readLock reads dir/Chart.lock (nil when absent) and checks that it matches
// Chart.yaml's dependencies, as helm dependency build does.
func readLock(fsys fs.FS, dir string, c *chart.Chart) (*chart.Lock, error) {
	data, err := fsutil.ReadFile(fsys, path.Join(dir, "Chart.lock"), fsutil.DefaultMaxFileSize)
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
	if err := checkLock(dir, c.Metadata.Dependencies, lock); err != nil {
		return nil, err
	}
	return lock, nil
}

// checkLock refuses a Chart.lock that does not record the dependencies
// Chart.yaml declares, as `helm dependency build` (which Argo CD runs
// before rendering) refuses it: its digest must be the one of Chart.yaml's
// dependencies and the locked ones, an empty digest included. Whether the
// dependencies are vendored, file:// or remote makes no difference.
func checkLock(dir string, deps []*chart.Dependency, lock *chart.Lock) error {
	want, err := hashReq(deps, lock.Dependencies)
	if err != nil {
		return err
	}
	if lock.Digest != want {
		return &ChartError{Chart: dir + "/Chart.lock", Err: fmt.Errorf("the lock file is out of sync with the dependencies in %s/Chart.yaml (helm dependency build refuses it)", dir),
			Hint: "run `helm dependency update " + dir + "` and commit Chart.lock"}
	}
	return nil
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

// remoteChart returns a remote dependency's archive, from the cache when
// it holds a verified copy, downloading it otherwise. The cache is never
// trusted on its own (anyone who can write a shared CI cache, or the plugin
// sidecar's /tmp, could swap a chart): a cached archive is used only when
// its digest matches the repository's pin (SumsFile), or, online, the chart
// repository's index. Online, an OCI dependency is pulled every run (the
// registry checks its layers by digest). It returns the archive's cache
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
	sums, err := r.sums()
	if err != nil {
		return "", nil, err
	}
	pin := sums[sumKey(dep.Repository, dep.Name, version)]
	oci := strings.HasPrefix(dep.Repository, "oci://")
	file := filepath.Join(r.opts.CacheDir, "charts", cacheKey(dep.Repository, dep.Name, version)+".tgz")
	corrupt := ""
	if exact && r.opts.CacheDir != "" {
		data, err := readCached(file)
		switch {
		case err == nil:
			want, verr := r.expectedDigest(ctx, dep, version, pin, oci)
			switch {
			case verr != nil:
				return "", nil, depErr(verr.Error(), "vendor it with `helm dependency build "+dir+"`, or pin it in "+SumsFile+" (see docs/render.md)")
			case want != "" && want == digestOf(data):
				return file, data, nil
			case want != "":
				corrupt = fmt.Sprintf("the cache entry %s has digest %s, but %s", file, digestOf(data), wantSource(pin, want))
			}
		case !errors.Is(err, fs.ErrNotExist):
			corrupt = fmt.Sprintf("the cache entry %s is corrupt (%v)", file, err)
		}
	}
	if r.opts.Offline {
		if corrupt != "" {
			return "", nil, depErr(corrupt+"; downloads are off (offline)", "run once without --offline to fetch it again, or remove the entry")
		}
		return "", nil, depErr(fmt.Sprintf("version %s is neither vendored under %s/charts/ nor in the cache, and downloads are off (offline)", version, dir),
			"run once without --offline to fill the cache, or vendor the chart with `helm dependency build "+dir+"`")
	}
	if corrupt != "" {
		r.log.Warn("fetching a dependency again", "reason", corrupt)
	}
	var data []byte
	if oci {
		if !exact {
			return "", nil, depErr(fmt.Sprintf("version %q is a range; OCI dependencies need an exact version", version), "pin an exact version in Chart.yaml or Chart.lock")
		}
		data, err = r.pullOCI(dep, version)
	} else {
		data, version, err = r.downloadHTTP(ctx, dep, version)
		pin = sums[sumKey(dep.Repository, dep.Name, version)]
	}
	if err != nil {
		return "", nil, depErr(err.Error(), "check the repository URL and your network, or vendor the chart with `helm dependency build "+dir+"`")
	}
	if pin != "" && digestOf(data) != pin {
		return "", nil, depErr(fmt.Sprintf("the downloaded archive has digest %s, but %s pins %s", digestOf(data), SumsFile, pin),
			"if the chart was re-published on purpose, check it and update "+SumsFile+"; otherwise the repository or the network is not to be trusted")
	}
	if r.opts.CacheDir == "" {
		return "(downloaded)", data, nil
	}
	file = filepath.Join(r.opts.CacheDir, "charts", cacheKey(dep.Repository, dep.Name, version)+".tgz")
	if err := writeCached(file, data); err != nil {
		// The archive is verified and in memory: a cache that cannot be
		// written only costs the next run a download.
		r.log.Warn("cannot write the dependency cache", "file", file, "error", err)
		return "(downloaded)", data, nil
	}
	r.log.Debug("cached dependency", "chart", dir, "dependency", dep.Name, "version", version, "file", file)
	return file, data, nil
}

// expectedDigest returns the digest a cached archive must have: the pin,
// or, online, the digest the chart repository's index gives. "" means the
// cached copy cannot be checked and must not be used (online: an OCI
// dependency, or an index without a digest; it is downloaded instead).
// Offline, an unpinned archive is an error.
func (r *Renderer) expectedDigest(ctx context.Context, dep *chart.Dependency, version, pin string, oci bool) (string, error) {
	switch {
	case pin != "":
		return pin, nil
	case r.opts.Offline:
		return "", fmt.Errorf("version %s is in the cache, but offline its archive cannot be checked: %s has no digest for it", version, SumsFile)
	case oci:
		return "", nil
	}
	idx, err := r.index(ctx, dep.Repository)
	if err != nil {
		return "", nil // the download will say what is wrong
	}
	cv, err := idx.Get(dep.Name, version)
	if err != nil || cv.Digest == "" {
		return "", nil
	}
	return "sha256:" + strings.TrimPrefix(cv.Digest, "sha256:"), nil
}

func wantSource(pin, want string) string {
	if pin != "" {
		return SumsFile + " pins " + want
	}
	return "the chart repository's index says " + want
}

// digestOf is "sha256:<hex>" of data.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// downloadHTTP resolves version in the repository's index.yaml and downloads
// the archive, verifying it against the index's digest.
func (r *Renderer) downloadHTTP(ctx context.Context, dep *chart.Dependency, version string) ([]byte, string, error) {
	idx, err := r.index(ctx, dep.Repository)
	if err != nil {
		return nil, "", err
	}
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
	if want := strings.TrimPrefix(cv.Digest, "sha256:"); want != "" {
		if got := digestOf(archive); got != "sha256:"+want {
			return nil, "", fmt.Errorf("the archive downloaded from %s has digest %s, but the repository index says %s", u, got, cv.Digest)
		}
	}
	return archive, cv.Version, nil
}

// index returns a chart repository's index, downloaded once per Renderer.
func (r *Renderer) index(ctx context.Context, repository string) (*repo.IndexFile, error) {
	return r.indexes.get(repository, func() (*repo.IndexFile, error) {
		indexURL := strings.TrimSuffix(repository, "/") + "/index.yaml"
		data, err := r.get(ctx, indexURL)
		if err != nil {
			return nil, err
		}
		var idx repo.IndexFile
		if err := yaml.Unmarshal(data, &idx); err != nil || idx.APIVersion == "" {
			return nil, fmt.Errorf("%s is not a chart repository index", indexURL)
		}
		idx.SortEntries()
		return &idx, nil
	})
}

// SumsFile pins the digests of remote chart dependencies, at the
// repository's root, one per line: "<repository> <name> <version>
// sha256:<hex>". A cached archive is used only when its digest matches its
// pin (or, online, the chart repository's index); offline, only pinned
// archives are used from the cache.
const SumsFile = layout.SumsFile

// parseSums reads SumsFile (Renderer.sums reads it once per Renderer). No
// file means no pins; a link to a file that is gone is an error, not "no
// pins".
func parseSums(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	real, err := fsutil.Resolve(fsys, SumsFile)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := fs.Lstat(fsys, SumsFile); lerr != nil {
			return out, nil
		}
		return nil, &ChartError{Chart: SumsFile, Err: errors.New("the file is a symbolic link whose target does not exist"), Hint: "point it at the pins, or remove it"}
	}
	var data []byte
	if err == nil {
		data, err = fsutil.ReadFile(fsys, real, fsutil.DefaultMaxFileSize)
	}
	if err != nil {
		return nil, &ChartError{Chart: SumsFile, Err: err, Hint: "fix or remove the file"}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 || !sumRE.MatchString(f[3]) {
			return nil, &ChartError{Chart: fmt.Sprintf("%s:%d", SumsFile, i+1), Err: errors.New("not a pin"),
				Hint: "write each line as <repository> <name> <version> sha256:<64 hex digits>"}
		}
		out[sumKey(f[0], f[1], f[2])] = f[3]
	}
	return out, nil
}

var sumRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func sumKey(repository, name, version string) string {
	return strings.TrimSuffix(repository, "/") + " " + name + " " + strings.TrimPrefix(version, "v")
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
	data, err := fsutil.ReadOSFile(file, maxDownload)
	if err != nil {
		return nil, err
	}
	want, err := fsutil.ReadOSFile(file+".sha256", 1024)
	if err != nil {
		return nil, err
	}
	if digestOf(data) != "sha256:"+strings.TrimSpace(string(want)) {
		return nil, errors.New("digest mismatch")
	}
	return data, nil
}

// writeCached writes an archive and then its digest, each atomically, so
// concurrent runs never see a partial entry (an archive without its digest
// is a cache miss).
func writeCached(file string, data []byte) error {
	if err := fsutil.WriteFileAtomic(file, data); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(file+".sha256", []byte(strings.TrimPrefix(digestOf(data), "sha256:")+"\n"))
}
