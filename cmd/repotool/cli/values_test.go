package cli_test

import (
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
)

// TestValuesCommand: the fixture's prod storefront, with origins in both
// formats (its secret values files stand as "(secret: FILE:LINE)", and
// are not decrypted: no key is set up), one subtree, and the usage errors.
func TestValuesCommand(t *testing.T) {
	runCases(t, []cliCase{
		{"yaml", []string{"values", monorepo, "-c", "prod-cluster", "-n", "namespace-a"}, "values.yaml", cli.ExitOK},
		{"origin yaml", []string{"values", monorepo, "-c", "prod-cluster", "-n", "namespace-a", "--origin"}, "values-origin.yaml", cli.ExitOK},
		{"origin json", []string{"values", monorepo, "-c", "prod-cluster", "-n", "namespace-a", "--origin", "-o", "json"}, "values-origin.json", cli.ExitOK},
		{"subchart and get", []string{"values", monorepo, "-c", "dev-cluster", "-n", "namespace-b", "--origin", "--get", "redis"}, "values-get.yaml", cli.ExitOK},
		{"nothing there", []string{"values", monorepo, "-c", "prod-cluster", "-n", "namespace-a", "--get", "image.nope"}, "values-get-missing.txt", cli.ExitError},
		{"a target with layout errors", []string{"values", "testdata/broken", "-c", "dev", "-n", "shop"}, "values-broken.txt", cli.ExitError},
		{"a target without a chart", []string{"values", "testdata/broken", "-c", "dev", "-n", "ghost"}, "values-ghost.txt", cli.ExitError},
		{"no target", []string{"values", monorepo, "-c", "prod-cluster", "-n", "nope"}, "values-no-target.txt", cli.ExitError},
		{"no cluster", []string{"values", monorepo, "-n", "namespace-a"}, "values-no-cluster.txt", cli.ExitError},
		{"unknown format", []string{"values", monorepo, "-c", "prod-cluster", "-n", "namespace-a", "-o", "xml"}, "values-bad-format.txt", cli.ExitError},
	})
}
