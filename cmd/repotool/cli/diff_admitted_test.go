package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/pkg/change"
)

// TestDiffAsAdmitted: turning prod's always-pull-images policy off changes
// only the policies target's objects as rendered, but, as admitted,
// namespace-b's Deployment too, and the change names the policy that set
// its imagePullPolicy at base. Every target of prod is compared, none of
// dev's.
func TestDiffAsAdmitted(t *testing.T) {
	dir := committedMonorepo(t)
	file := filepath.Join(dir, "clusters", "prod-cluster", "policies", "prod-values-policies.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "alwaysPullImages: true", "alwaysPullImages: false", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) change.Result {
		t.Helper()
		out, code := runCLI(t, append([]string{"diff", dir, "--base", "HEAD", "-o", "json"}, extra...)...)
		if code != cli.ExitOK {
			t.Fatalf("diff %v: exit %d\n%s", extra, code, out)
		}
		var res change.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	changedIn := func(res change.Result) []string {
		var out []string
		for _, c := range res.Changes {
			out = append(out, c.Target+" "+c.Object)
		}
		return out
	}
	plain := run()
	if got := changedIn(plain); slices.ContainsFunc(got, func(s string) bool { return !strings.HasPrefix(s, "prod-cluster/policies ") }) || len(got) != 2 {
		t.Errorf("diff: changes %q, want the policy and its binding", got)
	}
	admitted := run("--as-admitted")
	want := "prod-cluster/namespace-b apps/v1/Deployment namespace-b/orders-api"
	i := slices.Index(changedIn(admitted), want)
	if i < 0 || len(admitted.Changes) != 3 {
		t.Fatalf("diff --as-admitted: changes %q, want %q besides the policy's", changedIn(admitted), want)
	}
	c := admitted.Changes[i]
	note := "base: MutatingAdmissionPolicy always-pull-images (binding always-pull-images): /spec/template/spec/containers/0/imagePullPolicy"
	if !slices.Equal(c.Admission, []string{note}) || !strings.Contains(c.Diff, "-        imagePullPolicy: Always\n+        imagePullPolicy: IfNotPresent\n") ||
		strings.Count(c.Diff, "\n-") != 1 {
		t.Errorf("the Deployment's change: admission %q, diff\n%s", c.Admission, c.Diff)
	}
	for _, tg := range admitted.Targets {
		if !strings.HasPrefix(tg.Name, "prod-cluster/") {
			t.Errorf("target %s compared: only prod's policies changed", tg.Name)
		}
	}
	if len(admitted.Targets) < 5 {
		t.Errorf("%d targets compared, want every target of prod-cluster", len(admitted.Targets))
	}
	text, _ := runCLI(t, "diff", dir, "--base", "HEAD", "--as-admitted")
	if !strings.Contains(text, "  admitted: "+note+"\n") {
		t.Errorf("the text output does not say what was admitted:\n%s", text)
	}
}
