package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestRenderAsAdmitted: on the fixture, prod's always-pull-images policy
// changes namespace-b's Deployment and nothing else; dev, which has no
// mutating policy, prints what render prints; the flags it cannot go with
// are refused.
func TestRenderAsAdmitted(t *testing.T) {
	testtool.UseTestKey(t)
	plain, code := runCLI(t, "render", monorepo, "-c", "prod-cluster", "-n", "namespace-b")
	if code != cli.ExitOK {
		t.Fatalf("render: exit %d\n%s", code, plain)
	}
	admitted, code := runCLI(t, "render", monorepo, "-c", "prod-cluster", "-n", "namespace-b", "--as-admitted")
	if code != cli.ExitOK {
		t.Fatalf("render --as-admitted: exit %d\n%s", code, admitted)
	}
	const note = "# Admitted: MutatingAdmissionPolicy always-pull-images (binding always-pull-images): /spec/template/spec/containers/0/imagePullPolicy\n"
	if strings.Count(admitted, "# Admitted: ") != 1 || !strings.Contains(admitted, note+"apiVersion: apps/v1\nkind: Deployment\n") {
		t.Errorf("render --as-admitted does not name the one change before the Deployment:\n%s", admitted)
	}
	if strings.Count(plain, "imagePullPolicy: IfNotPresent") != strings.Count(admitted, "imagePullPolicy: IfNotPresent")+1 ||
		!strings.Contains(admitted, "imagePullPolicy: Always") {
		t.Errorf("the Deployment's imagePullPolicy is not Always as admitted:\n%s", admitted)
	}
	before, _, _ := strings.Cut(plain, "kind: Deployment")
	if !strings.HasPrefix(admitted, strings.TrimSuffix(before, "apiVersion: apps/v1\n")) {
		t.Error("the objects before the Deployment are not printed as render prints them")
	}
	dev, _ := runCLI(t, "render", monorepo, "-c", "dev-cluster", "--no-decrypt")
	devAdmitted, code := runCLI(t, "render", monorepo, "-c", "dev-cluster", "--no-decrypt", "--as-admitted")
	if code != cli.ExitOK || dev != devAdmitted {
		t.Errorf("dev-cluster has no mutating policy, but render --as-admitted differs (exit %d)", code)
	}
	for _, extra := range [][]string{{"--out-dir", t.TempDir()}, {"--redact"}, {"--tier", "application"}, {"--shard", "1/2"}} {
		args := append([]string{"render", monorepo, "-c", "prod-cluster", "--as-admitted"}, extra...)
		if out, code := runCLI(t, args...); code != cli.ExitError || !strings.Contains(out, "--as-admitted") {
			t.Errorf("%v: exit %d\n%s", extra, code, out)
		}
	}
}

// TestRenderAsAdmittedCanary: on the canary repository, the comments that
// say what a mutating policy did name no secret value, even where a
// policy writes one into a key or quotes one in its failure.
func TestRenderAsAdmittedCanary(t *testing.T) {
	testtool.UseTestKey(t)
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../../testdata/canary")); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"failing", "strict"} { // they fail to render, and so would the cluster
		if err := os.RemoveAll(filepath.Join(repo, "clusters", "dev", ns)); err != nil {
			t.Fatal(err)
		}
	}
	out, code := runCLI(t, "render", repo, "-c", "dev", "-n", "leaky", "--as-admitted")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var notes []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# Admitted: ") || strings.HasPrefix(line, "# Not admitted: ") {
			notes = append(notes, line)
		}
	}
	text := strings.Join(notes, "\n")
	for _, want := range []string{"# Admitted: MutatingAdmissionPolicy copies-secrets", "(a field whose name holds a secret value)",
		"# Not admitted: MutatingAdmissionPolicy fails-quoting"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the notes:\n%s", want, text)
		}
	}
	for _, frag := range canaryFragments() {
		if strings.Contains(text, frag) {
			t.Errorf("a note holds the canary fragment %q:\n%s", frag, text)
		}
	}
}
