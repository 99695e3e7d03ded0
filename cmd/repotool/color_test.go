package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestLintColor: lint's text is coloured on a terminal, as diff's is, and
// not into a pipe, with NO_COLOR set or with --color never; --color always
// colours a pipe too. Its findings' first lines fit in 120 columns.
func TestLintColor(t *testing.T) {
	bin := testtool.Repotool(t)
	repo := filepath.Join(testtool.ModuleRoot(t), "testdata", "lint", "stray-api-version", "repo")
	run := func(onTerminal bool, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"lint", repo, "--no-decrypt"}, args...)...)
		cmd.Env = append(testtool.CleanEnv(t.TempDir()), env...)
		if !onTerminal {
			out, _ := cmd.Output() // exit 1: findings
			return string(out)
		}
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 120})
		if err != nil {
			t.Fatal(err)
		}
		defer tty.Close()
		var out bytes.Buffer
		io.Copy(&out, tty)
		cmd.Wait()
		return out.String()
	}
	const red = "\x1b[31merror\x1b[0m"
	if got := run(true, nil); !strings.Contains(got, red) {
		t.Errorf("no colour on a terminal:\n%q", got)
	}
	for name, got := range map[string]string{
		"a pipe":         run(false, nil),
		"NO_COLOR":       run(true, []string{"NO_COLOR=1"}),
		"--color never":  run(true, nil, "--color", "never"),
		"TERM=dumb":      run(true, []string{"TERM=dumb"}),
		"-o json on tty": run(true, nil, "-o", "json"),
	} {
		if strings.Contains(got, "\x1b[") {
			t.Errorf("colour with %s:\n%q", name, got)
		}
	}
	got := run(false, nil, "--color", "always")
	if !strings.Contains(got, red) {
		t.Errorf("--color always did not colour a pipe:\n%q", got)
	}
	plain := run(false, nil)
	for _, l := range strings.Split(plain, "\n") {
		if !strings.HasPrefix(l, " ") && len([]rune(l)) > 120 {
			t.Errorf("a first line of %d columns: %s", len([]rune(l)), l)
		}
	}
	if _, err := os.Stat(repo); err != nil {
		t.Fatal(err)
	}
}
