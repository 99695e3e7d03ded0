package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testtool"
)

// loopingRepo is a repository whose only target runs a template that loops
// for minutes (with little memory): CPU-bound work Helm cannot stop.
func loopingRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	files := map[string]string{
		"namespaces/busy/Chart.yaml":           "apiVersion: v2\nname: busy\nversion: 1.0.0\n",
		"namespaces/busy/templates/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: busy\ndata:\n  n: \"{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\"\n",
		"clusters/dev/busy/dev-values-a.yaml":  "a: 1\n",
		"namespaces/quick/Chart.yaml":          "apiVersion: v2\nname: quick\nversion: 1.0.0\n",
		"namespaces/quick/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quick\n",
		"clusters/dev/quick/dev-values-a.yaml": "a: 1\n",
	}
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// TestInterrupt: SIGINT or SIGTERM during a CPU-bound template ends the run
// within a second, with exit code 130 and one line saying so, and an
// interrupted --out-dir run writes nothing. (Before, the run went on for
// 46 s and exited 0.)
func TestInterrupt(t *testing.T) {
	bin := testtool.Repotool(t)
	repo := loopingRepo(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			os.MkdirAll(filepath.Join(out, "dev"), 0o755)
			stale := filepath.Join(out, "dev", "quick.yaml")
			os.WriteFile(stale, []byte("old\n"), 0o644)
			cmd := exec.Command(bin, "render", repo, "--all", "--out-dir", out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond) // well inside the looping template
			sent := time.Now()
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130\n%s", err, stderr.String())
			}
			if took > 2*time.Second {
				t.Errorf("took %s to stop after the signal", took)
			}
			if got := stderr.String(); got != "repotool: interrupted\n" {
				t.Errorf("stderr = %q, want one line", got)
			}
			if data, _ := os.ReadFile(stale); string(data) != "old\n" {
				t.Error("an interrupted run wrote into the output folder")
			}
		})
	}
}

// TestTimeout: a runaway template fails its target after --timeout, with
// a message that says so, and the other targets still render.
func TestTimeout(t *testing.T) {
	bin := testtool.Repotool(t)
	repo := loopingRepo(t)
	cmd := exec.Command(bin, "render", repo, "--all", "--timeout", "1s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	if !strings.Contains(stderr.String(), "render dev/busy (chart namespaces/busy): did not finish within 1s (--timeout)") || !strings.Contains(stderr.String(), "1 of 2 targets failed") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
