package charts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/layout"
)

// parseSums reads layout.SumsFile (Supply.sums reads it once per Supply). No
// file means no pins; a link to a file that is gone is an error, not "no
// pins".
func parseSums(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	real, err := fsutil.Resolve(fsys, layout.SumsFile)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := fs.Lstat(fsys, layout.SumsFile); lerr != nil {
			return out, nil
		}
		return nil, &ChartError{
			Chart: layout.SumsFile,
			Err:   errors.New("the file is a symbolic link whose target does not exist"),
			Hint:  "point it at the pins, or remove it",
		}
	}
	var data []byte
	if err == nil {
		data, err = fsutil.ReadFile(fsys, real, fsutil.DefaultMaxFileSize)
	}
	if err != nil {
		return nil, &ChartError{Chart: layout.SumsFile, Err: err, Hint: "fix or remove the file"}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 || !sumRE.MatchString(f[3]) {
			return nil, &ChartError{Chart: fmt.Sprintf("%s:%d", layout.SumsFile, i+1), Err: errors.New("not a pin"),
				Hint: "write each line as <repository> <name> <version> sha256:<64 hex digits>"}
		}
		out[SumKey(f[0], f[1], f[2])] = f[3]
	}
	return out, nil
}

var sumRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// SumKey is the key of an archive's pin in layout.SumsFile: repository
// (without a trailing /, and without user information: a URL's password
// is written nowhere), chart name and version (without a leading v),
// separated by spaces, as a pin's line starts.
func SumKey(repository, name, version string) string {
	return strings.TrimSuffix(ShownURL(repository), "/") + " " + name + " " + strings.TrimPrefix(version, "v")
}

// ShownURL is the repository or archive URL s as repotool prints and
// writes it: without its user information (user name and password), which
// a Chart.yaml may hold and the operator's credentials may be.
func ShownURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// IsExactVersion reports whether v is one version, not a range: a remote
// dependency resolved from a range may change from one run to the next.
func IsExactVersion(v string) bool {
	if v == "" {
		return false
	}
	_, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v"))
	return err == nil
}

// cacheKey addresses a cache entry by repository (without user
// information, as SumKey), chart name and version.
func cacheKey(repository, name, version string) string {
	sum := sha256.Sum256([]byte(strings.TrimSuffix(ShownURL(repository), "/") + "\x00" + name + "\x00" + version))
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
