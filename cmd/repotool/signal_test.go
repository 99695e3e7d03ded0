package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
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

// TestCaughtEarly: repotool asks for SIGINT and SIGTERM in the init of
// internal/interrupt, which must run before the heavy packages' (Helm,
// Kubernetes, SOPS and repotool's own): a signal sent while those are
// initialising (a third of a second on a busy machine) is otherwise lost
// when the process started with SIGINT ignored.
func TestCaughtEarly(t *testing.T) {
	bin := testtool.Repotool(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var inits []string
	for line := range strings.Lines(stderr.String()) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inits = append(inits, f[1])
		}
	}
	at := slices.Index(inits, "github.com/repotool/repotool/internal/interrupt")
	if at < 0 {
		t.Fatalf("internal/interrupt not in the init trace:\n%s", stderr.String())
	}
	if at > len(inits)/10 {
		t.Errorf("internal/interrupt is init %d of %d, want among the first tenth", at+1, len(inits))
	}
	for _, pkg := range inits[:at] {
		for _, heavy := range []string{"helm.sh/", "k8s.io/", "sigs.k8s.io/", "github.com/getsops/", "github.com/repotool/"} {
			if strings.HasPrefix(pkg, heavy) {
				t.Errorf("%s initialises before internal/interrupt", pkg)
			}
		}
	}
}

// TestInterruptEveryCommand: each long-running command stops at SIGINT
// with exit code 130, whether the signal arrives while the process is
// still initialising or inside a template, when it was started with
// SIGINT ignored as a script's background job is, on a loaded machine:
// repotool on one thread (GOMAXPROCS=1) and a busy process per core
// beside it. (The reporter's script lost an early Ctrl-C, and the run
// went on until --timeout.)
func TestInterruptEveryCommand(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to see when the process catches SIGINT")
	}
	bin := testtool.Repotool(t)
	for range runtime.NumCPU() {
		busy := exec.Command("sh", "-c", "while :; do :; done")
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	repo := loopingRepo(t)
	testtool.GitCommit(t, repo, "first")
	// The change diff must render: the looping chart, at both revisions.
	os.WriteFile(filepath.Join(repo, "clusters/dev/busy/dev-values-a.yaml"), []byte("a: 2\n"), 0o644)
	argocd := []string{"ARGOCD_APP_NAME=dev-busy", "ARGOCD_APP_NAMESPACE=busy", "ARGOCD_APP_SOURCE_PATH=clusters/dev/busy", "ARGOCD_ENV_CLUSTER=dev", "ARGOCD_ENV_NAMESPACE=busy", "REPOTOOL_CLUSTER=dev"}
	commands := []struct {
		name string
		args []string
		dir  string
		env  []string
	}{
		{"render", []string{"render", repo, "--all", "--out-dir", t.TempDir()}, repo, nil},
		{"lint", []string{"lint", repo}, repo, nil},
		{"diff", []string{"diff", repo, "--base", "HEAD"}, repo, nil},
		{"hydrate", []string{"hydrate", repo, "--out", t.TempDir()}, repo, nil},
		{"argocd", []string{"render", "--argocd"}, filepath.Join(repo, "clusters/dev/busy"), argocd},
	}
	for _, c := range commands {
		for _, when := range []string{"starting", "rendering"} {
			t.Run(c.name+"/"+when, func(t *testing.T) {
				// sh ignores SIGINT, then becomes repotool, which starts
				// with it ignored.
				cmd := exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`, bin}, c.args...)...)
				cmd.Dir = c.dir
				cmd.Env = append(os.Environ(), append(c.env, "GOMAXPROCS=1")...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				if !waitCaught(cmd.Process.Pid, 10*time.Second) {
					t.Fatalf("repotool did not catch SIGINT within 10s\n%s", stderr.String())
				}
				if when == "rendering" {
					time.Sleep(1500 * time.Millisecond)
				}
				sent := time.Now()
				cmd.Process.Signal(syscall.SIGINT)
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				var err error
				select {
				case err = <-exited:
				case <-time.After(10 * time.Second):
					t.Fatalf("still running 10s after SIGINT\n%s", stderr.String())
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 130 {
					t.Errorf("exit: %v, want status 130\n%s", err, stderr.String())
				}
				if took := time.Since(sent); took > 2*time.Second {
					t.Errorf("took %s to stop after the signal", took)
				}
				if got := stderr.String(); !strings.HasSuffix(got, "repotool: interrupted\n") {
					t.Errorf("stderr = %q, want it to end saying so", got)
				}
			})
		}
	}
}

// waitCaught waits until process pid is repotool and catches SIGINT: a
// process that starts with SIGINT ignored keeps it ignored until
// signal.Notify, so this is the moment internal/interrupt's init ran.
func waitCaught(pid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if strings.TrimSpace(string(comm)) != "repotool" {
			continue
		}
		for line := range strings.Lines(string(status)) {
			if hex, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
				if err == nil && mask&(1<<(syscall.SIGINT-1)) != 0 {
					return true
				}
			}
		}
	}
	return false
}
