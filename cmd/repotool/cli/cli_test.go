package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
)

const monorepo = "../../../testdata/monorepo"

type cliCase struct {
	name     string
	args     []string
	golden   string // file under testdata/golden; stdout, then stderr after a marker
	wantExit int
}

// runCLI runs repotool in-process and returns "stdout" plus, when there is
// any, a "--- stderr ---" section.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runCLIEnv(t, cli.Env{}, args...)
}

// runCLIEnv runs repotool in-process with env's Environ and Dir.
func runCLIEnv(t *testing.T, env cli.Env, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env.In, env.Out, env.Err = strings.NewReader(""), &out, &errOut
	code := cli.Run(context.Background(), args, env)
	s := out.String()
	if errOut.Len() > 0 {
		s += "--- stderr ---\n" + errOut.String()
	}
	return s, code
}

func runCases(t *testing.T, tests []cliCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, code := runCLI(t, tt.args...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d\n%s", code, tt.wantExit, got)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.golden), []byte(got))
		})
	}
}

func TestLayoutCommand(t *testing.T) {
	runCases(t, []cliCase{
		{"text", []string{"layout", monorepo}, "layout.txt", cli.ExitOK},
		{"json", []string{"layout", monorepo, "-o", "json"}, "layout.json", cli.ExitOK},
		{"broken repository", []string{"layout", "testdata/broken"}, "layout-broken.txt", cli.ExitFindings},
		{"broken repository json", []string{"layout", "testdata/broken", "--output=json"}, "layout-broken.json", cli.ExitFindings},
		{"invalid repotool.yaml", []string{"layout", "testdata/badconfig"}, "layout-badconfig.txt", cli.ExitError},
		{"missing repository", []string{"layout", "testdata/does-not-exist"}, "layout-missing.txt", cli.ExitError},
		{"not a repository", []string{"layout", "testdata/golden"}, "layout-not-repo.txt", cli.ExitError},
		{"unknown format", []string{"layout", monorepo, "-o", "xml"}, "layout-bad-format.txt", cli.ExitError},
		{"unknown flag", []string{"layout", "--frobnicate"}, "layout-bad-flag.txt", cli.ExitError},
		{"too many arguments", []string{"layout", "a", "b"}, "layout-too-many-args.txt", cli.ExitError},
	})
}

func TestLayoutDeterministic(t *testing.T) {
	first, _ := runCLI(t, "layout", monorepo, "-o", "json")
	for range 3 {
		if again, _ := runCLI(t, "layout", monorepo, "-o", "json"); again != first {
			t.Fatal("layout JSON differs between runs")
		}
	}
}

func TestBrokenFixtureSecretNotPrinted(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		got, _ := runCLI(t, "layout", "testdata/broken", "-o", format)
		if strings.Contains(got, "not-a-real-password-fixture") {
			t.Errorf("%s output prints the plaintext secret value:\n%s", format, got)
		}
	}
}

// TestCompletion: shells complete flag values from the repository: the
// clusters, a cluster's namespaces, output formats, tiers.
func TestCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "render", monorepo, "--cluster", ""}, []string{"dev-cluster", "prod-cluster"}},
		{[]string{"__complete", "lint", monorepo, "--cluster", "dev-cluster", "--namespace", ""}, []string{"namespace-a", "namespace-c"}},
		{[]string{"__complete", "lint", "-o", ""}, []string{"github", "json", "sarif", "text"}},
		{[]string{"__complete", "render", "--tier", ""}, []string{"application", "cluster", "namespaces"}},
		{[]string{"__complete", "generate", monorepo, "--cluster", ""}, []string{"dev-cluster", "prod-cluster"}},
	}
	for _, tt := range tests {
		got, code := runCLI(t, tt.args...)
		if code != cli.ExitOK {
			t.Errorf("%v: exit %d\n%s", tt.args, code, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w+"\n") {
				t.Errorf("%v: %q not offered:\n%s", tt.args, w, got)
			}
		}
	}
}

// unwrap joins the lines lint's text format wraps at 120 columns (each
// continuation indented by four spaces) back into one, for tests that look
// for a phrase.
func unwrap(s string) string { return strings.ReplaceAll(s, "\n    ", " ") }
