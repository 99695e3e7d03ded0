package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestTemplateBombs: in a real process, a target whose templates run each
// other without end fails alone: render --all --out-dir writes the other
// targets and the summary and exits 1 naming the template, and lint
// reports it and the rest. (Before, a values string that tpls itself
// overflowed the stack at 5.9 GB: lint printed nothing and render --all
// left 4 of 10 files and no summary.)
func TestTemplateBombs(t *testing.T) {
	bin := testtool.Repotool(t)
	for name, bomb := range map[string]struct{ template, values string }{
		"tpl of itself": {`{{ tpl .Values.rec . | quote }}`, "rec: \"{{ tpl .Values.rec . }}\"\n"},
		"include cycle": {`{{ include "a" . | quote }}{{ define "a" }}{{ include "b" . }}{{ end }}{{ define "b" }}{{ include "a" . }}{{ end }}`, "x: 1\n"},
		"template actions deep in includes": {`{{ include "t" (dict "n" 0 "i" 0) | quote }}{{ define "t" }}{{ if lt (int .n) 40000 }}{{ template "t" (dict "n" (add1 .n) "i" .i) }}` +
			`{{ else if lt (int .i) 30 }}{{ include "t" (dict "n" 0 "i" (add1 .i)) }}{{ end }}{{ end }}`, "x: 1\n"},
	} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			files := map[string]string{
				"namespaces/bomb/Chart.yaml":          "apiVersion: v2\nname: bomb\nversion: 1.0.0\n",
				"namespaces/bomb/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  v: " + bomb.template + "\n",
				"clusters/dev/bomb/dev-values-a.yaml": bomb.values,
			}
			for i := range 9 {
				files[fmt.Sprintf("namespaces/ok%d/Chart.yaml", i)] = fmt.Sprintf("apiVersion: v2\nname: ok%d\nversion: 1.0.0\n", i)
				files[fmt.Sprintf("namespaces/ok%d/templates/cm.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok%d\n", i)
				files[fmt.Sprintf("clusters/dev/ok%d/dev-values-a.yaml", i)] = "a: 1\n"
			}
			testtool.WriteFiles(t, repo, files)
			out := filepath.Join(t.TempDir(), "out")
			stderr, code := runBin(t, bin, "render", repo, "--all", "--out-dir", out)
			if code != 1 || !strings.Contains(stderr, "1 of 10 targets failed") || !strings.Contains(stderr, "namespaces/bomb/templates/cm.yaml:6") ||
				!strings.Contains(stderr, "repotool's limit") {
				t.Errorf("render --all: exit %d\n%s", code, stderr)
			}
			for i := range 9 {
				if _, err := os.Stat(filepath.Join(out, "dev", fmt.Sprintf("ok%d.yaml", i))); err != nil {
					t.Errorf("render --all did not write target ok%d: %v", i, err)
				}
			}
			lint, code := runBin(t, bin, "lint", repo)
			if code != 1 || !strings.Contains(lint, "namespaces/bomb/templates/cm.yaml:6: error [render]") || !strings.Contains(lint, "in 10 targets (9 rendered)") {
				t.Errorf("lint: exit %d\n%s", code, lint)
			}
		})
	}
}

// runBin runs the repotool binary and returns its output (both streams)
// and exit code.
func runBin(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}
