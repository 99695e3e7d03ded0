package hydrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/fsutil"
)

// Recording is what an output's target folders say about how they were
// hydrated, read from the commands of their hydrator.metadata (which
// reproduce each manifest: "repotool render . --cluster C --namespace N
// [--tier T] [--secrets M]").
type Recording struct {
	// Secrets is the mode each cluster's folders were written with
	// (refuse when their commands name none).
	Secrets map[string]SecretsMode
	// Cluster is the one cluster of an output that holds its target
	// folders at the root, as a checkout of a cluster's branch does;
	// "" for an output of <cluster>/<namespace> folders.
	Cluster string
}

// Record reads the recording of the output fsys: its target folders are
// the folders with a hydrator.metadata, one level down (a cluster's
// branch) or two (--out). A folder whose metadata is not JSON or records
// no repotool render command (edited, or not hydrate's) records nothing:
// checking reports its files. An unreadable metadata file, an unknown
// mode, a cluster whose folders disagree, and a branch's checkout with
// folders of more than one cluster are errors: checking the output as
// something else would report every file.
func Record(fsys fs.FS) (*Recording, error) {
	rec := &Recording{Secrets: map[string]SecretsMode{}}
	top, err := fs.ReadDir(fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, err
	}
	var flat, nested []string
	for _, e := range top {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if isRegular(fsys, e.Name()+"/"+MetadataFile) {
			flat = append(flat, e.Name())
			continue
		}
		sub, err := fs.ReadDir(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		for _, s := range sub {
			if d := e.Name() + "/" + s.Name(); s.IsDir() && isRegular(fsys, d+"/"+MetadataFile) {
				nested = append(nested, d)
			}
		}
	}
	if len(flat) > 0 && len(nested) > 0 {
		return nil, fmt.Errorf("holds target folders both at its root (%s/) and below a cluster's folder (%s/): it is neither a cluster's branch nor an output "+
			"of <cluster>/<namespace> folders", flat[0], nested[0])
	}
	for _, d := range append(flat, nested...) {
		cluster, mode, err := folderRecord(fsys, d)
		if errors.Is(err, errNoRecord) {
			continue // not hydrate's, or damaged: the check reports its files
		}
		if err != nil {
			return nil, err
		}
		if prev, seen := rec.Secrets[cluster]; seen && prev != mode {
			return nil, fmt.Errorf("%s/%s records --secrets %s, and another folder of cluster %s --secrets %s: hydrate the output again", d, MetadataFile,
				mode, cluster, prev)
		}
		rec.Secrets[cluster] = mode
	}
	if len(flat) > 0 && len(rec.Secrets) > 0 {
		clusters := make([]string, 0, len(rec.Secrets))
		for c := range rec.Secrets {
			clusters = append(clusters, c)
		}
		slices.Sort(clusters)
		if len(clusters) > 1 {
			return nil, fmt.Errorf("holds the target folders of clusters %s at its root: a cluster's branch holds one cluster's", strings.Join(clusters, ", "))
		}
		rec.Cluster = clusters[0]
	}
	return rec, nil
}

// folderRecord is the cluster and secrets mode the hydrator.metadata of
// the target folder d records.
func folderRecord(fsys fs.FS, d string) (string, SecretsMode, error) {
	file := path.Join(d, MetadataFile)
	data, err := fsutil.ReadFile(fsys, file, fsutil.DefaultMaxFileSize)
	if err != nil {
		return "", "", err
	}
	var m metadata
	if json.Unmarshal(data, &m) != nil {
		return "", "", errNoRecord
	}
	for _, c := range m.Commands {
		args := strings.Fields(c)
		if len(args) < 2 || args[0] != "repotool" || args[1] != "render" {
			continue
		}
		cluster, mode := "", SecretsRefuse
		for i := 2; i+1 < len(args); i++ {
			switch args[i] {
			case "--cluster":
				cluster = args[i+1]
			case "--secrets":
				mode = SecretsMode(args[i+1])
			}
		}
		if err := checkMode(mode); err != nil {
			return "", "", fmt.Errorf("%s: %w", file, err)
		}
		if cluster != "" {
			return cluster, mode, nil
		}
	}
	return "", "", errNoRecord
}

// errNoRecord is a target folder whose hydrator.metadata records nothing.
var errNoRecord = errors.New("no recording")

// Checkout presents a checkout of cluster's branch (its target folders at
// the root) as the output it is part of: <cluster>/<path> is its <path>,
// and nothing else is there. It is Options.Previous for checking the
// checkout, so that Secrets keep the ciphertext it holds.
func Checkout(fsys fs.FS, cluster string) fs.FS {
	return checkoutFS{fsys, cluster}
}

type checkoutFS struct {
	fs.FS
	cluster string
}

func (c checkoutFS) Open(name string) (fs.File, error) {
	rest, ok := strings.CutPrefix(name, c.cluster+"/")
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return c.FS.Open(rest)
}
