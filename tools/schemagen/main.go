//go:build tools

// Command schemagen regenerates the Kubernetes schemas embedded in
// pkg/schema: for each Kubernetes minor version it downloads the
// k8s.io/kubernetes module (through the Go module proxy, as `go mod
// download` does), reads the official OpenAPI spec in api/openapi-spec/,
// converts its definitions with schema.ConvertDefinitions and writes
// pkg/schema/data/v1.<minor>.json.gz. Run it through go generate:
//
//	go generate ./pkg/schema
//
// To add the next Kubernetes version, widen the -minors range of the
// generate directive in pkg/schema/embedded.go and run it again. It is a
// development tool, built only with the tools tag, so that installing
// repotool (go install ./..., as pre-commit does) installs the CLI alone.
//
// Inside: (built with `-tags tools` only, like `gensynth`, so that `go install
// ./...`, which pre-commit runs, installs the CLI alone) the `go generate`
// step of `pkg/schema`: downloads `k8s.io/kubernetes` per minor through the
// module proxy and writes the converted schemas.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/repotool/repotool/pkg/schema"
)

func main() {
	out := flag.String("out", "data", "folder to write v1.<minor>.json.gz into")
	minors := flag.String("minors", "29-37", "Kubernetes minor versions, as a range FIRST-LAST")
	flag.Parse()
	first, last, ok := strings.Cut(*minors, "-")
	lo, err1 := strconv.Atoi(first)
	hi, err2 := strconv.Atoi(last)
	if !ok || err1 != nil || err2 != nil || lo > hi {
		fail(fmt.Errorf("-minors %q: want FIRST-LAST, like 29-37", *minors))
	}
	versions, err := latestPatches(lo, hi)
	if err != nil {
		fail(err)
	}
	for _, v := range versions {
		if err := generate(*out, v); err != nil {
			fail(fmt.Errorf("%s: %w", v, err))
		}
		fmt.Println("wrote", v)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "schemagen:", err)
	os.Exit(1)
}

// latestPatches returns the newest release of each minor the proxy has.
func latestPatches(lo, hi int) ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-versions", "k8s.io/kubernetes").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m -versions k8s.io/kubernetes: %w", err)
	}
	best := map[uint64]*semver.Version{}
	for _, s := range strings.Fields(string(out))[1:] {
		v, err := semver.StrictNewVersion(strings.TrimPrefix(s, "v"))
		if err != nil || v.Prerelease() != "" || v.Major() != 1 || v.Minor() < uint64(lo) || v.Minor() > uint64(hi) {
			continue
		}
		if b := best[v.Minor()]; b == nil || v.GreaterThan(b) {
			best[v.Minor()] = v
		}
	}
	var versions []string
	for m := lo; m <= hi; m++ {
		v := best[uint64(m)]
		if v == nil {
			return nil, fmt.Errorf("the module proxy has no release of Kubernetes 1.%d", m)
		}
		versions = append(versions, "v"+v.String())
	}
	return versions, nil
}

func generate(outDir, version string) error {
	out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+version).Output()
	if err != nil {
		return fmt.Errorf("go mod download: %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return fmt.Errorf("go mod download: no folder in %s", out)
	}
	data, err := os.ReadFile(filepath.Join(mod.Dir, "api", "openapi-spec", "swagger.json"))
	if err != nil {
		return err
	}
	var spec struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return err
	}
	kinds := map[string]string{}
	for name, d := range spec.Definitions {
		m, _ := d.(map[string]any)
		gvks, _ := m["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			group, _ := gvk["group"].(string)
			ver, _ := gvk["version"].(string)
			kind, _ := gvk["kind"].(string)
			apiVersion := ver
			if group != "" {
				apiVersion = group + "/" + ver
			}
			key := apiVersion + "/" + kind
			// Prefer the definition in the group's own package over shared
			// ones (meta/v1's WatchEvent, DeleteOptions ...).
			if prev, ok := kinds[key]; !ok || len(name) < len(prev) || (len(name) == len(prev) && name < prev) {
				kinds[key] = name
			}
		}
	}
	payload := schema.Embedded{KubernetesVersion: version, Kinds: kinds, Definitions: schema.ConvertDefinitions(spec.Definitions)}
	js, err := json.Marshal(payload) // map keys sorted: the same input gives the same bytes
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression) // no name, no mtime: reproducible
	if err != nil {
		return err
	}
	zw.Write(js)
	if err := zw.Close(); err != nil {
		return err
	}
	sv := semver.MustParse(version)
	file := filepath.Join(outDir, fmt.Sprintf("v1.%d.json.gz", sv.Minor()))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}
