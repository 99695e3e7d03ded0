package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestCompareHelms: compare --helm v3,v4 on the fixture (every target
// renders the same objects) and on a repository where Helm 4 changes a
// ConfigMap (a vendor-suffixed cluster version in .Capabilities), in each
// format; a bad pair is a usage error.
func TestCompareHelms(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"repotool.yaml":                     "clusters:\n  gke: {kubeVersion: v1.33.4-gke.1245000}\n",
		"namespaces/caps/Chart.yaml":        "apiVersion: v2\nname: caps\nversion: 1.0.0\n",
		"namespaces/caps/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
		"clusters/gke/caps/values.yaml":     "{}\n",
	})
	for _, tc := range []struct {
		args   []string
		golden string
		code   int
	}{
		{[]string{"compare", monorepo, "--helm", "v3,v4"}, "compare-helm-fixture.txt", cli.ExitOK},
		{[]string{"compare", dir, "--helm", "v4,v3", "--color", "never"}, "compare-helm.txt", cli.ExitOK},
		{[]string{"compare", dir, "--helm", "v3,v4", "-o", "json"}, "compare-helm.json", cli.ExitOK},
		{[]string{"compare", dir, "--helm", "v3,v4", "-o", "markdown"}, "compare-helm.md", cli.ExitOK},
		{[]string{"compare", dir, "--helm", "v3,v5"}, "compare-helm-bad.txt", cli.ExitError},
	} {
		out, code := runCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
		golden.Check(t, filepath.Join("testdata", "golden", tc.golden), []byte(out))
	}
}
