package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary run helper instead of the tests.
const helperEnv = "REPOTOOL_INTERRUPT_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helper())
	}
	// The test binary itself should still stop at Ctrl-C.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	os.Exit(m.Run())
}

// helper sends itself SIGINT before it asks for the context, as a signal
// that arrives while repotool is still initialising its packages, and
// says whether the context saw it.
func helper() int {
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(100 * time.Millisecond) // the signal is delivered, or lost
	ctx, stop := Context(context.Background())
	defer stop()
	select {
	case <-ctx.Done():
		fmt.Println("cancelled")
	case <-time.After(5 * time.Second):
		fmt.Println("not cancelled")
	}
	return 0
}

// TestEarlySignal: a process started with SIGINT ignored (a background job
// of a script) that gets SIGINT before main asks for it still stops. With
// signal.NotifyContext in main, as before, the signal was discarded.
func TestEarlySignal(t *testing.T) {
	for _, ignored := range []bool{true, false} {
		t.Run(fmt.Sprintf("ignored=%t", ignored), func(t *testing.T) {
			script := `exec "$0"`
			if ignored {
				script = `trap "" INT; exec "$0"`
			}
			cmd := exec.Command("sh", "-c", script, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != "cancelled" {
				t.Errorf("helper said %q, want cancelled", got)
			}
		})
	}
}

// TestStop: stop cancels the context and lets the signals go, and a
// second call does nothing.
func TestStop(t *testing.T) {
	ctx, stop := Context(context.Background())
	stop()
	stop()
	if ctx.Err() == nil {
		t.Error("context not cancelled by stop")
	}
}
