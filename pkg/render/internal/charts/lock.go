package charts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/provenance"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
)

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
		return nil, &ChartError{Chart: dir + "/Chart.lock", Err: err, Hint: "regenerate it with `repotool deps update --chart " + dir + "`"}
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
		return &ChartError{Chart: dir + "/Chart.lock", Err: fmt.Errorf("the lock file is out of sync with the dependencies in %s/Chart.yaml (helm dependency "+
			"build refuses it)", dir),
			Hint: "run `repotool deps update --chart " + dir + "` and commit Chart.lock"}
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
