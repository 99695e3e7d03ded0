package cli_test

import (
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestCompareCommand: the fixture's storefront on its two clusters in
// every format (values with their origins, objects as diff shows them, a
// changed secret value named by its field only), the values matrix of
// every cluster, and the usage errors.
func TestCompareCommand(t *testing.T) {
	testtool.UseTestKey(t)
	runCases(t, []cliCase{
		{"text", []string{"compare", monorepo, "-n", "namespace-a", "dev-cluster", "prod-cluster", "--color", "never"}, "compare.txt", cli.ExitOK},
		{"json", []string{"compare", monorepo, "-n", "namespace-a", "--clusters", "dev-cluster,prod-cluster", "-o", "json"}, "compare.json", cli.ExitOK},
		{"markdown", []string{"compare", monorepo, "-n", "namespace-a", "dev-cluster", "prod-cluster", "-o", "markdown"}, "compare.md", cli.ExitOK},
		{"all clusters", []string{"compare", monorepo, "-n", "namespace-b", "--all-clusters", "--color", "never"}, "compare-all.txt", cli.ExitOK},
		{"every namespace", []string{"compare", monorepo, "--all-clusters", "--color", "never"}, "compare-every.txt", cli.ExitOK},
		{"every namespace, JSON", []string{"compare", monorepo, "--all-clusters", "-o", "json"}, "compare-every.json", cli.ExitOK},
		{"no namespace", []string{"compare", monorepo, "dev-cluster", "prod-cluster"}, "compare-no-namespace.txt", cli.ExitError},
		{"only one cluster deploys it", []string{"compare", monorepo, "-n", "dev-envs", "--all-clusters"}, "compare-one.txt", cli.ExitError},
		{"no clusters", []string{"compare", monorepo, "-n", "namespace-a"}, "compare-no-clusters.txt", cli.ExitError},
		{"itself", []string{"compare", monorepo, "-n", "namespace-a", "--clusters", "dev-cluster,dev-cluster"}, "compare-itself.txt", cli.ExitError},
		{"unknown cluster", []string{"compare", monorepo, "-n", "namespace-a", "dev-cluster", "nope"}, "compare-unknown.txt", cli.ExitError},
	})
}
