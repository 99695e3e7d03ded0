// Package interrupt catches SIGINT and SIGTERM from the start of the
// process, so that a signal sent while the program is still starting is
// not lost.
//
// A Go program started with SIGINT ignored (a background job of a
// non-interactive shell, nohup, some CI runners) keeps ignoring it until
// signal.Notify asks for it; one that arrives before then is discarded.
// repotool links Helm, Kubernetes' client libraries and SOPS' key services,
// whose package initialisation takes a third of a second on a busy
// 2-core machine, and longer when the binary is not yet in the page
// cache: a signal in that window used to be lost, and the run went on
// until --timeout. This package imports only the standard library's
// signal handling, so it is initialised among the first packages (see
// TestCaughtEarly) and asks for the signals in its init; main turns what
// arrived, then or later, into a context.
//
// Inside: catches `SIGINT`/`SIGTERM` in its `init`, which runs before the
// heavy dependencies' (standard library only), so that a signal sent while the
// process starts is not lost; `Context` turns it into the run's context.
// Imported by `main` only.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals holds the first signal until Context reads it.
var signals = make(chan os.Signal, 1)

func init() {
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
}

// Context returns a context that is cancelled at the first SIGINT or
// SIGTERM since the process started, including one that arrived before
// Context was called. After that first signal the signals are let go:
// the next one has its default effect (it ends the process at once,
// unless the process was started with it ignored). stop lets them go too.
// Call Context once, in main.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		select {
		case <-signals:
			signal.Stop(signals)
			cancel()
		case <-done:
		}
	}()
	return ctx, sync.OnceFunc(func() {
		close(done)
		signal.Stop(signals)
		cancel()
	})
}
