//go:build tools

// Command gensynth writes a synthetic monorepo for benchmarks. It is a
// development tool, built only with the tools tag, so that installing
// repotool (go install ./..., as pre-commit does) installs the CLI alone:
//
//	go run -tags tools ./tools/gensynth -clusters 10 -namespaces 20 -out /tmp/synth
//	go run -tags tools ./tools/gensynth -real -clusters 20 -namespaces 10 -out /tmp/real
//
// With -apps, every target is an Argo CD Application instead of a folder
// (synth.AsApplications). With -real, the namespaces use real community charts (cert-manager,
// external-secrets, ingress-nginx) from the Go modules internal/corpus pins
// (run `go mod download` there first; see its SOURCES.md).
//
// Inside: (built with `-tags tools` only) writes a synthetic monorepo from
// `internal/testing/synth` for the benchmark scripts: `go run -tags tools
// ./tools/gensynth -clusters 10 -namespaces 20 -out /tmp/synth`.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/repotool/repotool/internal/testing/synth"
)

func main() {
	var opts synth.Options
	out := flag.String("out", "", "folder to write the repository into (must not exist)")
	flag.StringVar(&opts.Source, "source", "testdata/monorepo", "fixture monorepo to copy charts and values from")
	flag.IntVar(&opts.Clusters, "clusters", 10, "number of clusters")
	flag.IntVar(&opts.Namespaces, "namespaces", 20, "number of namespaces, each deployed to every cluster")
	real := flag.Bool("real", false, "use real community charts from internal/corpus's modules")
	apps := flag.Bool("apps", false, "make every target an Argo CD Application (argocd/<cluster>/<namespace>.yaml) instead of a folder")
	sets := flag.Bool("appsets", false, "with -apps, make every other target's Application by an ApplicationSet per cluster")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gensynth: -out is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "gensynth: %s exists; give a new folder\n", *out)
		os.Exit(2)
	}
	var n int
	var err error
	if *real {
		n, err = generateReal(*out, opts)
	} else {
		n, err = synth.Generate(*out, opts)
	}
	if err == nil && *apps {
		n, err = synth.AsApplications(*out, *sets)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensynth:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d targets to %s\n", n, *out)
}

// realCharts are the community charts -real uses, from their projects'
// Go modules, with cluster values that vary them.
var realCharts = []struct {
	name, module, dir, common, values string
	secrets                           bool
}{
	{"ingress-nginx", "k8s.io/ingress-nginx", "charts/ingress-nginx", "commonLabels:\n  team: team-%d\n", "controller:\n  replicaCount: %d\n  " +
		"ingressClassResource:\n    default: false\n", true},
	{
		"cert-manager",
		"github.com/cert-manager/cert-manager",
		"deploy/charts/cert-manager",
		"global:\n  commonLabels:\n    team: team-%d\n",
		"replicaCount: %d\ncrds:\n  enabled: false\n",
		false,
	},
	{
		"external-secrets",
		"github.com/external-secrets/external-secrets",
		"deploy/charts/external-secrets",
		"commonLabels:\n  team: team-%d\n",
		"replicaCount: %d\ninstallCRDs: true\n",
		true,
	},
}

func generateReal(out string, opts synth.Options) (int, error) {
	ro := synth.RealOptions{Source: opts.Source, Clusters: opts.Clusters, Namespaces: opts.Namespaces}
	for _, c := range realCharts {
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", c.module)
		cmd.Dir = filepath.Join("internal", "corpus")
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=auto") // the corpus module needs Go 1.27 (see its go.mod)
		dir, err := cmd.Output()
		if err != nil || len(strings.TrimSpace(string(dir))) == 0 {
			return 0, fmt.Errorf("%s is not in the module cache (%v): run `GOTOOLCHAIN=auto go mod download` in internal/corpus", c.module, err)
		}
		ro.Charts = append(
			ro.Charts,
			synth.Chart{
				Name:    c.name,
				Dir:     filepath.Join(strings.TrimSpace(string(dir)), filepath.FromSlash(c.dir)),
				Common:  c.common,
				Values:  c.values,
				Secrets: c.secrets,
			},
		)
	}
	return synth.GenerateReal(out, ro)
}
