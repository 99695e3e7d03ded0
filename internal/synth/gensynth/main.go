//go:build tools

// Command gensynth writes a synthetic monorepo for benchmarks. It is a
// development tool, built only with the tools tag, so that installing
// repotool (go install ./..., as pre-commit does) installs the CLI alone:
//
//	go run -tags tools ./internal/synth/gensynth -clusters 10 -namespaces 20 -out /tmp/synth
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/repotool/repotool/internal/synth"
)

func main() {
	var opts synth.Options
	out := flag.String("out", "", "folder to write the repository into (must not exist)")
	flag.StringVar(&opts.Source, "source", "testdata/monorepo", "fixture monorepo to copy charts and values from")
	flag.IntVar(&opts.Clusters, "clusters", 10, "number of clusters")
	flag.IntVar(&opts.Namespaces, "namespaces", 20, "number of namespaces, each deployed to every cluster")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gensynth: -out is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "gensynth: %s exists; give a new folder\n", *out)
		os.Exit(2)
	}
	n, err := synth.Generate(*out, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensynth:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d targets to %s\n", n, *out)
}
