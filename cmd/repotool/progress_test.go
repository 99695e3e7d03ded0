package main_test

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestProgress: render --all shows progress on standard error when it is a
// terminal, and prints nothing of it into a pipe or with --quiet.
func TestProgress(t *testing.T) {
	bin := testtool.Repotool(t)
	repo := filepath.Join(testtool.ModuleRoot(t), "testdata", "monorepo")
	args := []string{"render", repo, "--all", "--no-decrypt", "--out-dir", t.TempDir()}

	run := func(args []string, onTerminal bool) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		if !onTerminal {
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr.String())
			}
			return stderr.String()
		}
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 120})
		if err != nil {
			t.Fatal(err)
		}
		defer tty.Close()
		var out bytes.Buffer
		io.Copy(&out, tty) // until the process closes its side
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}

	if got := run(args, true); !strings.Contains(got, "rendering") || !strings.Contains(got, "(1/11)") {
		t.Errorf("no progress on a terminal:\n%q", got)
	}
	if got := run(args, false); strings.Contains(got, "rendering") || strings.Contains(got, "\r") {
		t.Errorf("progress in a pipe:\n%q", got)
	}
	if got := run(append(args, "--quiet"), true); strings.Contains(got, "rendering") || strings.TrimSpace(got) != "" {
		t.Errorf("--quiet printed on a terminal:\n%q", got)
	}
}
