package charts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/repotool/repotool/internal/fsutil"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

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
		if err := checkChartFile(fsys, dir, n, p, fi); err != nil {
			if errors.Is(err, errLeftOut) {
				return nil
			}
			return err
		}
		if total += fi.Size(); total > loader.MaxDecompressedChartSize {
			return &ChartError{
				Chart: dir,
				Err:   fmt.Errorf("the chart's files add up to more than %d bytes", loader.MaxDecompressedChartSize),
				Hint:  "add what the chart does not need to .helmignore",
			}
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
	case errors.Is(err, fsutil.ErrNotCarried):
		return &ChartError{Chart: p, Err: err, Hint: "a chart may read only files of the repository's commits: remove the link, or commit the file it points to"}
	case errors.Is(err, fsutil.ErrSymlinkEscape):
		return &ChartError{Chart: p, Err: err, Hint: "replace the link with the files it points to, or point it inside the repository"}
	case errors.Is(err, fsutil.ErrSymlinkLoop):
		return &ChartError{Chart: p, Err: err, Hint: "remove the link, or point it at a folder that does not contain it"}
	case errors.Is(err, fs.ErrNotExist):
		return &ChartError{
			Chart: p,
			Err:   fmt.Errorf("broken symbolic link: its target does not exist (%w)", fs.ErrNotExist),
			Hint:  "point the link at an existing file, or remove it",
		}
	}
	return &ChartError{Chart: p, Err: err, Hint: "check the path"}
}

// errLeftOut is checkChartFile's answer for a file a checkout lacks.
var errLeftOut = errors.New("left out")

// checkChartFile checks the file n of the chart folder dir, read at p: a
// file Git ignores is left out (errLeftOut), as a checkout lacks it (the
// layout says so), and a link to one dangles in every checkout; an
// irregular or oversized file is refused.
func checkChartFile(fsys fs.FS, dir, n, p string, fi fs.FileInfo) error {
	if err := fsutil.Withheld(fsys, p); err != nil {
		if st, lerr := fs.Lstat(fsys, path.Join(dir, n)); lerr == nil && st.Mode()&fs.ModeSymlink == 0 {
			return errLeftOut
		}
		return chartPathError(path.Join(dir, n), fmt.Errorf("the link leads to %s: %w", p, err))
	}
	if !fi.Mode().IsRegular() {
		return &ChartError{
			Chart: dir,
			Err:   fmt.Errorf("cannot load %s: %w", n, &fsutil.NotRegularError{Mode: fi.Mode()}),
			Hint:  "remove it, or add it to .helmignore",
		}
	}
	if fi.Size() > loader.MaxDecompressedFileSize {
		return &ChartError{
			Chart: dir,
			Err:   fmt.Errorf("file %s is larger than %d bytes", n, loader.MaxDecompressedFileSize),
			Hint:  "remove it or add it to .helmignore",
		}
	}
	return nil
}
