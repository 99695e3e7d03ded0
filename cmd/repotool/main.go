// Command repotool renders, generates and lints Kubernetes GitOps manifest
// monorepos. See cmd/repotool/cli for the commands and pkg/ for the libraries.
//
// Inside: `main`: signal context (from `internal/interrupt`; a second signal
// ends the process), `cli.Run`, exit code. Nothing else. Its tests run the
// binary for signals (early and late, every long command, started with
// `SIGINT` ignored), timeouts, and templates that run each other without end
// (`bomb_test.go`).
package main

import (
	"context"
	"log"
	"os"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/interrupt"
)

func main() {
	// The library never prints; Helm's packages still write a few warnings
	// through Go's global logger (a dependency condition that is not a
	// boolean, say). Say whose they are, without a timestamp.
	log.SetFlags(0)
	log.SetPrefix("repotool: helm: ")
	// Caught since the process started (see internal/interrupt); after
	// the first signal, the next one ends the process at once.
	ctx, stop := interrupt.Context(context.Background())
	dir, _ := os.Getwd()
	code := cli.Run(ctx, os.Args[1:], cli.Env{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Environ: os.Environ(), Dir: dir, Version: cli.BuildVersion()})
	stop()
	os.Exit(code)
}
