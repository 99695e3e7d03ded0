package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
)

// TestDiffFailOnDelete: removing a cluster's namespace folder deletes its
// Applications, its AppProject and every object it deployed: diff
// --fail-on-delete names them and exits 3, --allow-delete approves; a
// change that deletes nothing wholesale passes, and without the flag
// nothing is refused.
func TestDiffFailOnDelete(t *testing.T) {
	dir := committedMonorepo(t)
	values := filepath.Join(dir, "clusters", "prod-cluster", "namespace-a", "prod-values-a.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte(strings.Replace(string(data), "LOG_LEVEL: info", "LOG_LEVEL: trace", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--fail-on-delete"); code != cli.ExitOK {
		t.Errorf("a change that deletes nothing: exit %d\n%s", code, out)
	}
	if err := os.RemoveAll(filepath.Join(dir, "clusters", "prod-cluster", "namespace-b")); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--fail-on-delete", "-o", "json")
	if code != cli.ExitDeletion {
		t.Fatalf("exit %d, want %d\n%s", code, cli.ExitDeletion, out)
	}
	_, msg, _ := strings.Cut(out, "--- stderr ---")
	for _, want := range []string{"Application namespace-b (cluster prod-cluster)", "Application namespace-b-security (cluster prod-cluster)",
		"AppProject namespace-b (cluster prod-cluster)", "every object of prod-cluster/namespace-b (", `"repotool: allow-delete"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message does not say %q:\n%s", want, msg)
		}
	}
	if !strings.Contains(out, `"action": "removed"`) {
		t.Error("the diff was not written before the refusal")
	}
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD", "--fail-on-delete", "--allow-delete"); code != cli.ExitOK {
		t.Errorf("--allow-delete: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "diff", dir, "--base", "HEAD"); code != cli.ExitOK {
		t.Errorf("without --fail-on-delete: exit %d\n%s", code, out)
	}
}
