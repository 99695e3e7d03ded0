package schema

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

//go:generate go run -tags tools ../../tools/schemagen -out data -minors 29-37

// Embedded is the content of one data/v1.<minor>.json.gz: the converted
// definitions of one Kubernetes version and which definition describes
// each apiVersion/kind.
type Embedded struct {
	KubernetesVersion string            `json:"kubernetesVersion"`
	Kinds             map[string]string `json:"kinds"`
	Definitions       map[string]any    `json:"definitions"`
}

//go:embed data
var data embed.FS

var (
	loadMu sync.Mutex
	loaded = map[int]*Embedded{}
)

// Minors returns the Kubernetes minor versions (1.x) with embedded schemas,
// sorted.
func Minors() []int { return slices.Clone(minors()) }

// minors are the embedded minor versions, read once.
var minors = sync.OnceValue(func() []int {
	entries, _ := data.ReadDir("data")
	var out []int
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "v1."), ".json.gz")
		if m, err := strconv.Atoi(name); err == nil {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
})

// MinorFor returns the embedded minor version used for a cluster running
// kubeVersion: its own minor when embedded, else the nearest one (the
// oldest for older clusters, the newest for newer ones).
func MinorFor(kubeVersion string) (int, error) {
	minorsFor.Lock()
	m, ok := minorsFor.m[kubeVersion]
	minorsFor.Unlock()
	if ok {
		return m, nil
	}
	m, err := minorFor(kubeVersion)
	if err == nil {
		minorsFor.Lock()
		if len(minorsFor.m) < maxMinorsFor {
			minorsFor.m[kubeVersion] = m
		}
		minorsFor.Unlock()
	}
	return m, err
}

// minorsFor remembers MinorFor's answers: Validate asks for every document
// (a lint of 20,000 targets some 300,000 times, every one parsing the
// version with a regular expression: 300 MB allocated), and a run knows a
// handful of versions. Past maxMinorsFor versions, answers are worked out
// without being kept.
var minorsFor = struct {
	sync.Mutex
	m map[string]int
}{m: map[string]int{}}

const maxMinorsFor = 64

func minorFor(kubeVersion string) (int, error) {
	v, err := semver.NewVersion(kubeVersion)
	if err != nil {
		return 0, fmt.Errorf("%q is not a Kubernetes version", kubeVersion)
	}
	minors := minors()
	if len(minors) == 0 {
		return 0, fmt.Errorf("no Kubernetes schemas are embedded")
	}
	m := int(v.Minor())
	return min(max(m, minors[0]), minors[len(minors)-1]), nil
}

// Load returns the embedded schemas of Kubernetes 1.<minor>, decompressed
// and parsed once per process.
func Load(minor int) (*Embedded, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if e, ok := loaded[minor]; ok {
		return e, nil
	}
	f, err := data.Open(fmt.Sprintf("data/v1.%d.json.gz", minor))
	if err != nil {
		return nil, fmt.Errorf("no embedded schemas for Kubernetes 1.%d (embedded: %v)", minor, Minors())
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	e := &Embedded{}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(e); err != nil {
		return nil, err
	}
	loaded[minor] = e
	return e, nil
}

// Schema returns the standalone strict JSON schema of a built-in
// apiVersion/kind, or false when Kubernetes 1.<minor> has no such kind.
func (e *Embedded) Schema(apiVersion, kind string) (map[string]any, bool) {
	name, ok := e.Kinds[apiVersion+"/"+kind]
	if !ok {
		return nil, false
	}
	return Inline(e.Definitions, name), true
}
