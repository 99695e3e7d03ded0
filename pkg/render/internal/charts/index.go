package charts

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"sigs.k8s.io/yaml"
)

// A chart repository's index.yaml, read as Helm reads it (its package
// repo: LoadIndexFile, IndexFile.Get, ResolveReferenceURL), but only what
// finding and downloading one version takes. Helm's repo package is not
// linked: through its getters it brings in Helm's Kubernetes client,
// kubectl and kustomize, and with them the standard library's plugin
// package, which makes the linker keep and export every method of the
// binary (a larger program, slower to start, for every command).
// TestIndexLikeHelm holds the two to the same answers.

// index is a chart repository's index: each chart's versions, newest first.
type index struct {
	APIVersion string                     `json:"apiVersion"`
	Entries    map[string][]*indexVersion `json:"entries"`
}

// indexVersion is one version of a chart in an index: its Chart.yaml, and
// where its archive is and what its digest is.
type indexVersion struct {
	*chart.Metadata
	URLs   []string `json:"urls"`
	Digest string   `json:"digest,omitempty"`
}

// errNotIndex is the answer for data that is not a chart repository index.
var errNotIndex = errors.New("not a chart repository index")

// parseIndex reads an index.yaml (or its JSON form). As Helm does, it
// leaves out versions whose Chart.yaml Helm would refuse (no name, a
// version that is not semantic, and so on), and fails an index with no
// apiVersion.
func parseIndex(data []byte) (*index, error) {
	var idx index
	if err := yaml.Unmarshal(data, &idx); err != nil || idx.APIVersion == "" {
		return nil, errNotIndex
	}
	for name, versions := range idx.Entries {
		versions = slices.DeleteFunc(versions, func(v *indexVersion) bool { return !validVersion(v) })
		// Newest first; equal versions keep the index's order.
		slices.SortStableFunc(versions, func(a, b *indexVersion) int {
			return semver.MustParse(b.Version).Compare(semver.MustParse(a.Version))
		})
		idx.Entries[name] = versions
	}
	return &idx, nil
}

// validVersion reports whether Helm keeps v when it loads an index: a
// Chart.yaml that passes its checks (an index may carry apiVersion v1
// implicitly, and a repeated dependency name, which some repositories'
// software writes by stripping aliases, is let through).
func validVersion(v *indexVersion) bool {
	if v == nil {
		return false
	}
	if v.Metadata == nil {
		v.Metadata = &chart.Metadata{}
	}
	if v.APIVersion == "" {
		v.APIVersion = chart.APIVersionV1
	}
	err := v.Validate()
	var verr chart.ValidationError
	if errors.As(err, &verr) && strings.HasPrefix(verr.Error(), "validation: more than one dependency with name or alias") {
		return true
	}
	if err != nil {
		return false
	}
	_, perr := semver.NewVersion(v.Version) // Validate's check, made sure of: the sort relies on it
	return perr == nil
}

// get returns the version of the chart name that constraint asks for: the
// one whose version is written exactly so, else the newest that satisfies
// it ("" is any version but a pre-release, as "*" is).
func (idx *index) get(name, constraint string) (*indexVersion, error) {
	versions := idx.Entries[name]
	if len(versions) == 0 {
		return nil, fmt.Errorf("the repository has no chart %s", name)
	}
	c, err := semver.NewConstraint(cmp.Or(constraint, "*"))
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		if constraint != "" && v.Version == constraint {
			return v, nil
		}
	}
	for _, v := range versions {
		if c.Check(semver.MustParse(v.Version)) {
			return v, nil
		}
	}
	return nil, fmt.Errorf("the repository has no chart %s matching version %q", name, constraint)
}

// resolveURL is where an index's archive URL ref points, for the
// repository at base: ref itself when absolute, else ref against base's
// folder, with base's query.
func resolveURL(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("the archive URL %q of the repository index is not a URL", ShownURL(ref))
	}
	if r.IsAbs() {
		return ref, nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("the repository URL %q is not a URL", ShownURL(base))
	}
	b.Path = strings.TrimSuffix(b.Path, "/") + "/"
	b.RawPath = strings.TrimSuffix(b.RawPath, "/") + "/"
	u := b.ResolveReference(r)
	u.RawQuery = b.RawQuery
	return u.String(), nil
}
