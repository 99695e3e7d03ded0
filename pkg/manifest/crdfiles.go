package manifest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/yamlpos"
)

// maxArchiveFile bounds what ReadChartCRDs reads of one member of a packaged
// chart, as Helm's loader bounds it.
const maxArchiveFile = 64 << 20

// ReadChartCRDs finds the CRDs that the charts in dirs install without
// rendering them: the files of each chart's crds/ folder, of its unpacked
// subcharts' and of its packaged subcharts' (charts/*.tgz). CRDs written in
// templates are only known once rendered (see CRDsOf). A file that cannot
// be read or is not valid YAML is an error naming it and its line: the
// scope of a custom kind decides where Argo CD may deploy it, so it is not
// guessed.
func ReadChartCRDs(fsys fs.FS, dirs ...string) ([]*CRD, error) {
	var out []*CRD
	var errs []error
	for _, dir := range dirs {
		err := fsutil.Walk(fsys, dir, func(rel, real string, info fs.FileInfo, err error) error {
			if err != nil {
				return nil // layout reports links that cannot be followed
			}
			if info.IsDir() {
				return nil
			}
			p := path.Join(dir, rel)
			switch {
			case inCRDsFolder(rel) && isManifestFile(rel):
				data, err := fsutil.ReadFile(fsys, real, maxArchiveFile)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", p, err))
					return nil
				}
				crds, err := crdsInFile(data, Source{File: p})
				out = append(out, crds...)
				if err != nil {
					errs = append(errs, err)
				}
			case isSubchartArchive(rel):
				data, err := fsutil.ReadFile(fsys, real, maxArchiveFile)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", p, err))
					return nil
				}
				crds, err := crdsInArchive(data, p)
				out = append(out, crds...)
				if err != nil {
					errs = append(errs, err)
				}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
		}
	}
	return out, errors.Join(errs...)
}

// inCRDsFolder reports whether a path relative to a chart is in the crds/
// folder of the chart or of one of its unpacked subcharts.
func inCRDsFolder(rel string) bool {
	parts := strings.Split(rel, "/")
	for len(parts) >= 3 && parts[0] == "charts" {
		parts = parts[2:]
	}
	return len(parts) >= 2 && parts[0] == "crds"
}

// isSubchartArchive reports whether a path relative to a chart is a
// packaged subchart of the chart or of one of its unpacked subcharts.
func isSubchartArchive(rel string) bool {
	parts := strings.Split(rel, "/")
	for len(parts) >= 3 && parts[0] == "charts" {
		parts = parts[2:]
	}
	return len(parts) == 2 && parts[0] == "charts" && strings.HasSuffix(parts[1], ".tgz")
}

func isManifestFile(p string) bool {
	switch path.Ext(p) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// crdsInArchive reads the CRDs of a packaged chart: members are
// "<chart>/crds/...", and its own subcharts, unpacked or packaged.
func crdsInArchive(data []byte, file string) ([]*CRD, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not a gzip-compressed chart (%w): remove it and fetch the dependency with `repotool deps build`, or package it again", file, err)
	}
	tr := tar.NewReader(zr)
	var out []*CRD
	var errs []error
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, errors.Join(append(
				errs,
				fmt.Errorf("%s: not a readable chart archive (%w): remove it and fetch the dependency with `repotool deps build`, or package it again", file, err),
			)...)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(path.Clean(h.Name), "/") // below the chart's own folder
		if !ok || !(inCRDsFolder(rel) && isManifestFile(rel) || isSubchartArchive(rel)) {
			continue
		}
		if h.Size > maxArchiveFile {
			errs = append(errs, fmt.Errorf("%s!%s: larger than %d bytes", file, h.Name, maxArchiveFile))
			continue
		}
		member, err := io.ReadAll(tr)
		if err != nil {
			return out, errors.Join(append(errs, fmt.Errorf("%s!%s: %w", file, h.Name, err))...)
		}
		var crds []*CRD
		if isSubchartArchive(rel) {
			crds, err = crdsInArchive(member, file+memberSep+h.Name)
		} else {
			crds, err = crdsInFile(member, Source{File: file, Member: h.Name})
		}
		out = append(out, crds...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// crdsInFile reads the CRDs among a file's documents.
func crdsInFile(data []byte, src Source) ([]*CRD, error) {
	var out []*CRD
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			line, msg := yamlpos.ErrorLine(err)
			return out, fmt.Errorf("%s:%d: not valid YAML (%s): fix the file, or Argo CD's tiers cannot know the scope of the kinds it defines", src, line, msg)
		}
		doc := yamlpos.Root(&n)
		apiVersion, _ := yamlpos.Lookup(doc, "apiVersion")
		kind, _ := yamlpos.Lookup(doc, "kind")
		if apiVersion != nil && kind != nil && IsCRD(apiVersion.Value, kind.Value) {
			out = append(out, CRDFromNode(doc, src))
		}
	}
}

// CRDsOf returns the CRDs among objects (a rendering): read from each
// object's node when it has one, else from its YAML.
func CRDsOf(objs []Object) []*CRD {
	var out []*CRD
	for i := range objs {
		o := &objs[i]
		if !IsCRD(o.APIVersion, o.Kind) {
			continue
		}
		n := o.Node
		if n == nil {
			var doc yaml.Node
			if yaml.Unmarshal(o.YAML, &doc) != nil {
				continue // Read parsed it already; it cannot fail here
			}
			n = yamlpos.Root(&doc)
		}
		out = append(out, CRDFromNode(n, o.Source))
	}
	return out
}
