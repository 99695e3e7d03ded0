package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestAdoptExamples runs the worked examples of docs/adopt.md, each a
// repository laid out its own way under testdata/adopt/: layout, lint and
// one target's rendering, each against its golden, and none of them may
// print the examples' secret value.
func TestAdoptExamples(t *testing.T) {
	testtool.UseTestKey(t)
	const canary = "canary-shared-chart-7f3a9c" // enc-prod.secret.values.yaml's clientSecret
	for _, ex := range []struct {
		name   string
		target []string
		lint   int
	}{
		{"shared-chart", []string{"--cluster", "alpha", "--namespace", "staging"}, cli.ExitFindings},
	} {
		dir := filepath.Join("..", "..", "..", "testdata", "adopt", ex.name)
		for _, run := range []struct {
			cmd  string
			args []string
			exit int
		}{
			{"layout", []string{"layout", dir}, cli.ExitOK},
			{"lint", []string{"lint", dir}, ex.lint},
			{"lint-json", []string{"lint", dir, "-o", "json"}, ex.lint},
			{"render", append([]string{"render", dir}, ex.target...), cli.ExitOK},
		} {
			t.Run(ex.name+"/"+run.cmd, func(t *testing.T) {
				got, code := runCLI(t, run.args...)
				if code != run.exit {
					t.Errorf("exit code %d, want %d\n%s", code, run.exit, got)
				}
				if strings.Contains(got, canary) {
					t.Errorf("the output prints the example's secret value:\n%s", got)
				}
				golden.Check(t, filepath.Join("testdata", "golden", "adopt-"+ex.name+"-"+run.cmd+".txt"), []byte(got))
			})
		}
		if _, err := os.Stat(filepath.Join(dir, "repotool.yaml")); err != nil {
			t.Errorf("%s: the example has no repotool.yaml: %v", ex.name, err)
		}
	}
}
