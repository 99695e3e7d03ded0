package cli_test

import (
	"path/filepath"
	"slices"
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
	// The examples' secret values (enc-prod.secret.values.yaml's
	// clientSecret, the storefront's database password).
	canaries := []string{"canary-shared-chart-7f3a9c", "canary-projects-41d0e2"}
	for _, ex := range []struct {
		name   string
		target []string
		source string // the source path of the target's generated Applications
		lint   int
	}{
		{"shared-chart", []string{"--cluster", "alpha", "--namespace", "staging"}, "config/clusters/alpha", cli.ExitFindings},
		{"projects", []string{"--cluster", "eu-1", "--namespace", "etl"}, "projects/data/etl/eu-1/staging", cli.ExitFindings},
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
			{"generate", []string{"generate", dir, "--stdout"}, cli.ExitOK},
			{"render", append([]string{"render", dir}, ex.target...), cli.ExitOK},
		} {
			t.Run(ex.name+"/"+run.cmd, func(t *testing.T) {
				got, code := runCLI(t, run.args...)
				if code != run.exit {
					t.Errorf("exit code %d, want %d\n%s", code, run.exit, got)
				}
				for _, c := range canaries {
					if strings.Contains(got, c) {
						t.Errorf("the output prints the example's secret value:\n%s", got)
					}
				}
				golden.Check(t, filepath.Join("testdata", "golden", "adopt-"+ex.name+"-"+run.cmd+".txt"), []byte(got))
			})
		}
		t.Run(ex.name+"/plugin", func(t *testing.T) {
			// Argo CD runs the plugin in the Application's source path,
			// with the env generate writes: its two tiers render, between
			// them, what render does (and the target's Namespace).
			cl, ns := ex.target[1], ex.target[3]
			want, _ := runCLI(t, append([]string{"render", dir}, ex.target...)...)
			var got []string
			for _, tier := range []string{"application", "namespaces"} {
				out, code := runCLIEnv(t, cli.Env{Dir: filepath.Join(dir, filepath.FromSlash(ex.source)), Environ: []string{
					"ARGOCD_APP_NAME=" + ns, "ARGOCD_APP_NAMESPACE=" + ns, "ARGOCD_APP_SOURCE_PATH=" + ex.source,
					"ARGOCD_ENV_CLUSTER=" + cl, "ARGOCD_ENV_NAMESPACE=" + ns, "ARGOCD_ENV_TIER=" + tier, "REPOTOOL_CLUSTER=" + cl,
				}}, "render", "--argocd")
				if code != cli.ExitOK {
					t.Fatalf("the plugin, tier %s, exits %d:\n%s", tier, code, out)
				}
				got = append(got, documents(out)...)
			}
			// The namespaces tier adds the Namespace repotool writes.
			got = slices.DeleteFunc(got, func(d string) bool { return strings.HasPrefix(d, "# Source: repotool (the target's namespace)") })
			slices.Sort(got)
			if wantDocs := documents(want); !slices.Equal(got, wantDocs) {
				t.Errorf("the plugin's tiers render\n%v\nwhere render renders\n%v", got, wantDocs)
			}
		})
	}
}

// documents are a YAML stream's non-empty documents, sorted.
func documents(stream string) []string {
	var out []string
	for _, d := range strings.Split(stream, "\n---\n") {
		if d = strings.TrimSpace(strings.TrimPrefix(d, "---")); d != "" {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}
