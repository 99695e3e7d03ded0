package charts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/registry"

	"github.com/repotool/repotool/pkg/layout"
)

// maxDownload bounds a downloaded index or chart archive.
const maxDownload = 64 << 20

// remoteChart returns a remote dependency's archive, from the cache when
// it holds a verified copy, downloading it otherwise. The cache is never
// trusted on its own (anyone who can write a shared CI cache, or the plugin
// sidecar's /tmp, could swap a chart): a cached archive is used only when
// its digest matches the repository's pin (layout.SumsFile), or, online, the chart
// repository's index. Online, an OCI dependency is pulled every run (the
// registry checks its layers by digest). It returns the archive's cache
// path (for messages) and its bytes.
// LockedVersion is the version of dep that Chart.lock (lock, nil when
// there is none) pins, else the one Chart.yaml asks for.
func LockedVersion(dep *chart.Dependency, lock *chart.Lock) string {
	version := dep.Version
	if lock == nil {
		return version
	}
	for _, l := range lock.Dependencies {
		if l.Name == dep.Name && l.Repository == dep.Repository {
			version = l.Version
		}
	}
	return version
}

func (s *Supply) remoteChart(ctx context.Context, dir string, dep *chart.Dependency, lock *chart.Lock) (string, []byte, error) {
	depErr := func(reason, hint string) error {
		return &DependencyError{Chart: dir, Dependency: dep.Name, Repository: dep.Repository, Reason: reason, Hint: hint}
	}
	version := LockedVersion(dep, lock)
	exact := IsExactVersion(version)
	if s.cfg.CacheDir == "" && (s.cfg.Offline || !exact) {
		return "", nil, depErr("it is not vendored under "+dir+"/charts/ and no dependency cache is configured",
			"set a cache folder and fetch it with `repotool deps build`, or vendor it under "+dir+"/charts/")
	}
	sums, err := s.sums()
	if err != nil {
		return "", nil, err
	}
	pin := sums[SumKey(dep.Repository, dep.Name, version)]
	oci := strings.HasPrefix(dep.Repository, "oci://")
	file := filepath.Join(s.cfg.CacheDir, "charts", cacheKey(dep.Repository, dep.Name, version)+".tgz")
	corrupt := ""
	if exact && s.cfg.CacheDir != "" {
		data, why, err := s.fromCache(ctx, file, dep, version, pin, oci)
		switch {
		case err != nil:
			return "", nil, depErr(err.Error(), "pin it in "+layout.SumsFile+" with `repotool deps build` (see docs/render.md)")
		case data != nil:
			return file, data, nil
		}
		corrupt = why
	}
	if s.cfg.Offline {
		if corrupt != "" {
			return "", nil, depErr(corrupt+"; downloads are off (offline)", "run once without --offline to fetch it again, or remove the entry")
		}
		return "", nil, depErr(fmt.Sprintf("version %s is neither vendored under %s/charts/ nor in the cache, and downloads are off (offline)", version, dir),
			"run `repotool deps build` once without --offline to fill the cache and pin it in "+layout.SumsFile)
	}
	if corrupt != "" {
		s.cfg.Log.Warn("fetching a dependency again", "reason", corrupt)
	}
	var data []byte
	if oci {
		if !exact {
			return "", nil, depErr(
				fmt.Sprintf("version %q is a range; OCI dependencies need an exact version", version),
				"pin an exact version in Chart.yaml or Chart.lock",
			)
		}
		data, err = s.pullOCI(dep, version)
	} else {
		data, version, err = s.downloadHTTP(ctx, dep, version)
		pin = sums[SumKey(dep.Repository, dep.Name, version)]
	}
	if err != nil {
		return "", nil, depErr(err.Error(), "check the repository URL and your network; once fetched (`repotool deps build`), offline runs use the cache")
	}
	if pin != "" && digestOf(data) != pin {
		return "", nil, depErr(fmt.Sprintf("the downloaded archive has digest %s, but %s pins %s", digestOf(data), layout.SumsFile, pin),
			"if the chart was re-published on purpose, check it and update "+layout.SumsFile+"; otherwise the repository or the network is not to be trusted")
	}
	if s.cfg.CacheDir == "" {
		return "(downloaded)", data, nil
	}
	file = filepath.Join(s.cfg.CacheDir, "charts", cacheKey(dep.Repository, dep.Name, version)+".tgz")
	if err := writeCached(file, data); err != nil {
		// The archive is verified and in memory: a cache that cannot be
		// written only costs the next run a download.
		s.cfg.Log.Warn("cannot write the dependency cache", "file", file, "error", err)
		return "(downloaded)", data, nil
	}
	s.cfg.Log.Debug("cached dependency", "chart", dir, "dependency", dep.Name, "version", version, "file", file)
	return file, data, nil
}

// fromCache returns the cache entry file when its digest is the one
// expected (expectedDigest); else nil, and why the entry cannot be used
// when it is there. An error is a digest that cannot be known.
func (s *Supply) fromCache(ctx context.Context, file string, dep *chart.Dependency, version, pin string, oci bool) ([]byte, string, error) {
	data, err := readCached(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", nil
	case err != nil:
		return nil, fmt.Sprintf("the cache entry %s is corrupt (%v)", file, err), nil
	}
	want, err := s.expectedDigest(ctx, dep, version, pin, oci)
	switch {
	case err != nil:
		return nil, "", err
	case want != "" && want == digestOf(data):
		return data, "", nil
	case want != "":
		return nil, fmt.Sprintf("the cache entry %s has digest %s, but %s", file, digestOf(data), wantSource(pin, want)), nil
	}
	return nil, "", nil
}

// expectedDigest returns the digest a cached archive must have: the pin,
// or, online, the digest the chart repository's index gives. "" means the
// cached copy cannot be checked and must not be used (online: an OCI
// dependency, or an index without a digest; it is downloaded instead).
// Offline, an unpinned archive is an error.
func (s *Supply) expectedDigest(ctx context.Context, dep *chart.Dependency, version, pin string, oci bool) (string, error) {
	switch {
	case pin != "":
		return pin, nil
	case s.cfg.Offline:
		return "", fmt.Errorf("version %s is in the cache, but offline its archive cannot be checked: %s has no digest for it", version, layout.SumsFile)
	case oci:
		return "", nil
	}
	idx, err := s.index(ctx, dep.Repository)
	if err != nil {
		return "", nil // the download will say what is wrong
	}
	cv, err := idx.get(dep.Name, version)
	if err != nil || cv.Digest == "" {
		return "", nil
	}
	return "sha256:" + strings.TrimPrefix(cv.Digest, "sha256:"), nil
}

func wantSource(pin, want string) string {
	if pin != "" {
		return layout.SumsFile + " pins " + want
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
func (s *Supply) downloadHTTP(ctx context.Context, dep *chart.Dependency, version string) ([]byte, string, error) {
	idx, err := s.index(ctx, dep.Repository)
	if err != nil {
		return nil, "", err
	}
	cv, err := idx.get(dep.Name, version)
	if err != nil || len(cv.URLs) == 0 {
		return nil, "", fmt.Errorf("the repository has no chart %s matching version %q", dep.Name, version)
	}
	u, err := resolveURL(dep.Repository, cv.URLs[0])
	if err != nil {
		return nil, "", err
	}
	archive, err := s.get(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if want := strings.TrimPrefix(cv.Digest, "sha256:"); want != "" {
		if got := digestOf(archive); got != "sha256:"+want {
			return nil, "", fmt.Errorf("the archive downloaded from %s has digest %s, but the repository index says %s", ShownURL(u), got, cv.Digest)
		}
	}
	return archive, cv.Version, nil
}

// index returns a chart repository's index, downloaded once per run
// (Config.Indexes).
func (s *Supply) index(ctx context.Context, repository string) (*index, error) {
	return s.cfg.Indexes.m.Get(repository, func() (*index, error) {
		indexURL := strings.TrimSuffix(repository, "/") + "/index.yaml"
		data, err := s.get(ctx, indexURL)
		if err != nil {
			return nil, err
		}
		idx, err := parseIndex(data)
		if err != nil {
			return nil, fmt.Errorf("%s is not a chart repository index", ShownURL(indexURL))
		}
		return idx, nil
	})
}

func (s *Supply) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.cfg.HTTP.Do(req)
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

func (s *Supply) pullOCI(dep *chart.Dependency, version string) ([]byte, error) {
	opts := []registry.ClientOption{registry.ClientOptWriter(io.Discard), registry.ClientOptHTTPClient(s.cfg.HTTP)}
	if s.cfg.PlainHTTP {
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
